# Contended sample, deadline-driven tenant: the paper's "no more than 5% of B's jobs
# can miss the deadline of 1 hour", made strict: every job of root.deadline finishes
# within one hour of its submission.
QUEUE root.deadline
CONSTRAINT QS_DL(slack=0%, deadline=+1h) <= 0%;
