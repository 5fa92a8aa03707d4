"""The conformance driver behind conformance/run.py: plans (plans.py),
launches of batches of cases (launch.py), expectations and the LSA topology
(expect.py), the schedule of launches (schedule.py) and the driver's own
self-test (selftest.py)."""
