# Two-tenant sample, best-effort tenant (Tempo paper, section 8.2.1).
#
# root.engineer runs ad-hoc development jobs: no deadline, just as short a mean
# response time as the production SLO leaves room for.
QUEUE root.engineer
OPTIMIZE QS_AJR;
-- Keep the tail in check too: 95% of jobs within 30 minutes.
CONSTRAINT QS_PCT(p=95%) <= 30min;
