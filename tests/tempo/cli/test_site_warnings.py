"""Every command that simulates warns of the site file's settings the predictor leaves out,
and of a scheduler class other than the one it predicts (`tempo.cli.checks.warn_site`)."""

from click.testing import CliRunner
from samples import REPO
from test_cli_predict import ARGS

from tempo.cli import cli
from tempo.cli.preemption import scheduler_settings

CAPACITY = REPO / "configs" / "two-tenant-capacity.xml"
FAIR = REPO / "configs" / "two-tenant-expert.xml"
FAIR_CLASS = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler"
CAPACITY_CLASS = (
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"
)


def _site(path, scheduler_class):
    path.write_text(
        "<configuration>\n"
        f"<property><name>yarn.resourcemanager.scheduler.class</name><value>{scheduler_class}"
        "</value></property>\n"
        "<property><name>yarn.scheduler.fair.continuous-scheduling-enabled</name>"
        "<value>true</value></property>\n"
        "<property><name>yarn.scheduler.fair.locality-delay-node-ms</name><value>2000</value>"
        "</property>\n"
        "<property><name>yarn.scheduler.fair.locality-delay-rack-ms</name><value>4000</value>"
        "</property>\n</configuration>\n"
    )
    return path


def test_fair_scheduler_predictions_warn_of_delay_scheduling_and_another_scheduler(
    tmp_path, caplog
):
    """Continuous scheduling's time-based delay scheduling is not modelled (its count-based
    rule, by the thresholds, is: ``test_fair_locality``)."""
    site = _site(tmp_path / "yarn-site.xml", CAPACITY_CLASS)
    with caplog.at_level("WARNING", logger="tempo"):
        scheduler_settings(3, site, None, announce=False, config_path=FAIR)
    messages = [r.getMessage() for r in caplog.records]
    assert [m.split(": ")[0] for m in messages] == [f"{site}:2", f"{site}:4"]
    assert "not the Fair Scheduler tempo predicts" in messages[0]
    assert "delay scheduling" in messages[1]


def test_capacity_predictions_judge_only_the_scheduler_class(tmp_path, caplog):
    """The Capacity Scheduler does not read yarn.scheduler.fair.*: its delay settings are
    not the Fair Scheduler's; its class is judged against the Capacity Scheduler."""
    site = _site(tmp_path / "yarn-site.xml", FAIR_CLASS)
    with caplog.at_level("WARNING", logger="tempo"):
        scheduler_settings(3, site, None, announce=False, config_path=CAPACITY)
    (message,) = [r.getMessage() for r in caplog.records]
    assert message.startswith(f"{site}:2: ") and "not the Capacity Scheduler" in message
    caplog.clear()
    with caplog.at_level("WARNING", logger="tempo"):
        scheduler_settings(3, _site(site, CAPACITY_CLASS), None, config_path=CAPACITY)
    assert caplog.records == []


def test_predict_warns_through_logging(tmp_path, caplog):
    """The warning goes to stderr through logging (``--quiet`` hides it), not to stdout."""
    site = _site(tmp_path / "yarn-site.xml", FAIR_CLASS)
    with caplog.at_level("WARNING", logger="tempo"):
        result = CliRunner().invoke(cli, [*ARGS, "--site", str(site)])
    assert result.exit_code == 0, result.output
    assert f"{site}:4: yarn.scheduler.fair.locality-delay-node-ms = 2000" in caplog.text
    assert "delay scheduling" not in result.stdout


def test_each_scheduler_is_warned_of_its_own_settings(tmp_path, caplog):
    """An application-priority maximum concerns the Capacity Scheduler only; delay
    scheduling, the Fair Scheduler only."""
    site = _site(tmp_path / "yarn-site.xml", CAPACITY_CLASS)
    text = site.read_text().replace(
        "</configuration>",
        "<property><name>yarn.cluster.max-application-priority</name><value>5</value>"
        "</property>\n</configuration>",
    )
    site.write_text(text)
    with caplog.at_level("WARNING", logger="tempo"):
        scheduler_settings(3, site, None, announce=False, config_path=CAPACITY)
    text = caplog.text
    assert "priorities up to 5" in text and "delay scheduling" not in text
    caplog.clear()
    with caplog.at_level("WARNING", logger="tempo"):
        scheduler_settings(3, site, None, announce=False, config_path=FAIR)
    assert "delay scheduling" in caplog.text and "priorities up to 5" not in caplog.text


def test_an_unmeasured_constraint_is_named_in_the_unit_the_qs_table_uses(caplog):
    """The warning for a constraint with nothing to measure shows its threshold as the
    table does (5.0%, 1800.0s), not as the raw fraction or seconds."""
    import math

    import pandas as pd

    from tempo.cli.checks import warn_unmeasured
    from tempo.templates import parse_templates

    templates = parse_templates(
        "QUEUE root.app\nOPTIMIZE QS_AJR;\nCONSTRAINT QS_DL(slack=25%) < 5%;\n", "app.qs"
    )
    with caplog.at_level("WARNING"):
        count = warn_unmeasured(templates, pd.DataFrame({"predicted": [math.nan]}), "predicted")
    assert count == 1
    assert "app.qs:3:12: the constraint QS_DL(slack=0.25) < 5.0% of root.app" in caplog.text
