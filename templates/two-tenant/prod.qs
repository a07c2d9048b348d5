# Two-tenant sample, deadline-driven tenant (Tempo paper, section 8.2.1).
#
# root.prod runs recurring production jobs that downstream work waits for. A job
# counts as late only if it finishes after its deadline by more than 25% of its
# own run time (slack gamma = 25%, as in the paper's experiments); deadlines come
# from the trace's per-job deadline_s, or else the next run of the same recurring
# job (deadline=auto, the default).
QUEUE root.prod
-- No late job at all: the paper's strict r_i = 0 for the deadline tenant.
CONSTRAINT QS_DL(slack=25%) <= 0%;
-- While deadlines hold, finish production jobs as early as possible.
OPTIMIZE QS_DL(slack=25%);
PRIORITY 2;
