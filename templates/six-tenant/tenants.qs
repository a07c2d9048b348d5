# The six tenants of Company ABC (Tempo paper, Table 1 and section 8.2.3), with
# the average response time, deadline and throughput SLOs of the paper's
# comparison of PALD with SCALAR and MSPD.
#
# Deadlines use a 25% slack (paper, section 8.2.1); thresholds are examples:
# set them from the values `tempo qs` shows under the configuration in force.

# --- Deadline-driven tenants: their jobs gate the company's daily operations ---

# ETL: I/O-intensive, periodic but bursty loads. The paper's own template example.
QUEUE root.etl
OPTIMIZE QS_THR;
CONSTRAINT QS_DL(slack=25%) < 10% AND QS_UTIL < -25%;
PRIORITY 2;

# MV: long-running, CPU-intensive materialized views built on what ETL loads.
# Preempted reduces waste hours of work here (paper, section 2.3).
QUEUE root.mv
OPTIMIZE QS_DL(slack=25%);
CONSTRAINT QS_DL(slack=25%) < 10% AND QS_WASTE < 10%;
PRIORITY 2;

# APP: small, lightweight jobs of a high-priority production application;
# about 30% of them missed deadlines before tuning (paper, section 2.1).
QUEUE root.app
OPTIMIZE QS_DL(slack=25%);
CONSTRAINT QS_DL(slack=25%) < 5% AND QS_PCT(p=95%) < 5min;
PRIORITY 3;

# --- Best-effort tenants: as fast as possible once the others' SLOs hold ---

# BI: I/O-intensive exploratory SQL queries from analysts.
QUEUE root.bi
OPTIMIZE QS_AJR;
CONSTRAINT QS_AJR < 10min;

# DEV: a mixture of job types from engineers developing recurring jobs.
QUEUE root.dev
OPTIMIZE QS_AJR;

# STR: Hadoop streaming jobs from data scientists.
QUEUE root.str
OPTIMIZE QS_THR;
