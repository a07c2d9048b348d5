# Contended sample, deadline-driven tenant, in the paper's form "no more than 5% of
# B's jobs can miss the deadline of 1 hour", made strict and sized to this tenant:
# every job of root.deadline finishes within 90 minutes of its submission. (Its
# largest jobs run close to an hour even with the whole cluster, so a one-hour
# deadline is one the expert file itself misses when a task straggles.)
QUEUE root.deadline
CONSTRAINT QS_DL(slack=0%, deadline=+90min) <= 0%;
