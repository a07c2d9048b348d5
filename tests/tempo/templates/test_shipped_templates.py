"""The example templates shipped in templates/ parse and name the documented queues."""

from pathlib import Path

from tempo.templates import constraints, load_templates, objectives

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"


def test_two_tenant_templates():
    """root.prod is held to no late job at 25% slack; root.engineer optimizes AJR."""
    templates = {t.queue: t for t in load_templates(TEMPLATES / "two-tenant")}
    assert set(templates) == {"root.prod", "root.engineer"}
    assert templates["root.engineer"].optimize.name == "QS_AJR"
    [dl] = [c for c in templates["root.prod"].constraints if c.metric.name == "QS_DL"]
    assert (dl.metric.param("slack"), dl.op, dl.threshold) == (0.25, "<=", 0.0)


def test_six_tenant_templates():
    """The paper's six tenants each have a template with AJR, DL or THR objectives."""
    templates = load_templates(TEMPLATES / "six-tenant")
    queues = {t.queue for t in templates}
    assert queues == {f"root.{n}" for n in ("bi", "dev", "app", "str", "mv", "etl")}
    assert {m.name for _, m, _ in objectives(templates)} == {"QS_AJR", "QS_DL", "QS_THR"}
    assert ("root.etl", 0.1) in {(q, r) for q, m, r in constraints(templates) if m.name == "QS_DL"}
