"""`tempo config` on capacity-scheduler.xml values Java's ``Float.parseFloat`` reads as
Infinity or NaN (operator audit): modelled as Hadoop does, warned where Hadoop takes
them but not as meant, never a traceback."""

import json
from pathlib import Path

import pytest

from whatif.allocation.java_values import java_int_cast
from whatif.capacity import ConfigurationDocument, effective_queues

ROOT = Path(__file__).resolve().parents[3]
TWO = ROOT / "configs" / "two-tenant-capacity.xml"
ULF = "yarn.scheduler.capacity.root.prod.user-limit-factor"


def _with_ulf(tmp_path: Path, value: str) -> Path:
    text = TWO.read_text()
    old = f"<name>{ULF}</name>\n    <value>2</value>"
    assert old in text
    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(text.replace(old, f"<name>{ULF}</name>\n    <value>{value}</value>"))
    return path


def test_java_int_cast_saturates_and_maps_nan_to_zero():
    assert java_int_cast(float("inf")) == 2**31 - 1
    assert java_int_cast(float("-inf")) == -(2**31)
    assert java_int_cast(float("nan")) == 0
    assert java_int_cast(12.9) == 12 and java_int_cast(-12.9) == -12


@pytest.mark.parametrize(("value", "per_user"), [("1e400", 7500), ("Infinity", 7500), ("NaN", 0)])
def test_an_infinite_factor_is_no_per_user_cap_and_nan_a_cap_of_zero(tmp_path, value, per_user):
    queues = effective_queues(ConfigurationDocument.from_file(_with_ulf(tmp_path, value)))
    assert queues["root.prod"].maximum_applications == 7500
    assert queues["root.prod"].maximum_applications_per_user == per_user


@pytest.mark.parametrize("command", ["validate", "show", "diff", "convert"])
def test_config_commands_read_an_infinite_user_limit_factor(run, tmp_path, command):
    path = _with_ulf(tmp_path, "1e400")
    args = {
        "validate": [path],
        "show": [path],
        "diff": [TWO, path],
        "convert": [path, "-o", tmp_path / "fair.xml"],
    }[command]
    result = run("config", command, *args)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output


def test_validate_warns_of_a_nan_factor_naming_the_property_and_line(run, tmp_path):
    result = run("config", "validate", _with_ulf(tmp_path, "NaN"))
    assert result.exit_code == 0
    assert "line 35: warning: " + ULF + ": nan; expected a positive factor" in result.output


@pytest.mark.parametrize(
    "assignment",
    [
        "root.prod.user-limit-factor=1e308",
        "root.prod.user-limit-factor=Infinity",
        "root.prod.minimum-user-limit-percent=1e400",
        "maximum-am-resource-percent=1e400",
    ],
)
def test_set_writes_an_infinite_value_it_reads_back(run, tmp_path, assignment):
    out = tmp_path / "out.xml"
    result = run("config", "set", TWO, "--set", assignment, "-o", out)
    assert result.exit_code == 0, result.output
    shown = run("config", "show", out, "--json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["queues"]


def test_set_warns_of_what_hadoop_takes_but_not_as_asked(run, tmp_path):
    out = tmp_path / "out.xml"
    result = run("config", "set", TWO, "--set", "maximum-am-resource-percent=1e400", "-o", out)
    assert result.exit_code == 0
    assert f"{out}: line 15: warning: yarn.scheduler.capacity.maximum-am-resource-percent" in (
        result.output
    )


def test_predict_reads_infinite_user_limits_as_hadoop_does(run, tmp_path):
    text = _with_ulf(tmp_path, "1e400").read_text()
    extra = "".join(
        f"<property><name>yarn.scheduler.capacity.root.engineer.{k}</name>"
        f"<value>1e400</value></property>"
        for k in ("minimum-user-limit-percent", "maximum-am-resource-percent")
    )
    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(text.replace("</configuration>", extra + "</configuration>"))
    result = run(
        "predict", "--engine", "reference", "--trace", ROOT / "traces" / "two-tenant",
        "--config", path, "--cluster", "nodes=24,memory-mb=8192,vcores=8", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
