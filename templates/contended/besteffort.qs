# Contended sample, best-effort tenant: as short a mean response time as the
# deadline tenant's SLO leaves room for.
QUEUE root.besteffort
OPTIMIZE QS_AJR;
