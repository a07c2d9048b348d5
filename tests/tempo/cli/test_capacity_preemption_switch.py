"""With a capacity-scheduler.xml the preemption switch is the preemption monitor's
(``yarn.resourcemanager.scheduler.monitor.enable``), read where the ResourceManager reads
it (the site file), else from the capacity file, and announced with its source."""

import pytest
from samples import REPO

from tempo.cli.preemption import capacity_preemption, scheduler_settings

TWO = REPO / "configs" / "two-tenant-capacity.xml"
ENABLE = "yarn.resourcemanager.scheduler.monitor.enable"


def _conf(path, **properties):
    body = "".join(
        f"  <property>\n    <name>{k}</name>\n    <value>{v}</value>\n  </property>\n"
        for k, v in properties.items()
    )
    path.write_text(f"<?xml version='1.0'?>\n<configuration>\n{body}</configuration>\n")
    return path


def _capacity_with_monitor(tmp_path, value):
    text = TWO.read_text().replace(
        "</configuration>",
        f"  <property>\n    <name>{ENABLE}</name>\n    <value>{value}</value>\n  </property>\n"
        "</configuration>",
    )
    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(text)
    return path


def test_off_by_default_and_the_fair_property_does_not_count(tmp_path):
    """A yarn-site.xml that turns the Fair Scheduler's preemption on does not start the
    Capacity Scheduler's monitor."""
    site = _conf(tmp_path / "yarn-site.xml", **{"yarn.scheduler.fair.preemption": "true"})
    on, source = capacity_preemption(site, TWO, None)
    assert not on and source == f"Hadoop's default for {ENABLE}: false"
    assert scheduler_settings(3, site, None, config_path=TWO).preemption is False
    fair = REPO / "configs" / "two-tenant-expert.xml"
    assert scheduler_settings(3, site, None, config_path=fair).preemption is True


@pytest.mark.parametrize(
    ("policies", "on"),
    [
        (None, True),
        (
            "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity."
            "ProportionalCapacityPreemptionPolicy",
            True,
        ),
        ("org.example.OtherPolicy", False),
    ],
)
def test_the_site_file_switch_names_its_line(tmp_path, policies, on):
    props = {ENABLE: "true"}
    if policies:
        props["yarn.resourcemanager.scheduler.monitor.policies"] = policies
    site = _conf(tmp_path / "yarn-site.xml", **props)
    assert capacity_preemption(site, TWO, None) == (on, f"{ENABLE} in {site}:3")


def test_the_capacity_file_switch_is_honoured_and_the_option_overrides_the_site(tmp_path):
    path = _capacity_with_monitor(tmp_path, "true")
    on, source = capacity_preemption(None, path, None)
    assert on and source.startswith(f"{ENABLE} in {path}:")
    assert capacity_preemption(None, TWO, True) == (True, "--preemption")
    site = _conf(tmp_path / "yarn-site.xml", **{ENABLE: "true"})
    assert capacity_preemption(site, TWO, False) == (False, "--no-preemption")
    # the capacity file is what the predictor reads as the cluster's: the option cannot undo it
    on, source = capacity_preemption(None, path, False)
    assert on and "--no-preemption does not override it" in source


def test_the_announcement_names_the_monitor(tmp_path, capsys):
    site = _conf(tmp_path / "yarn-site.xml", **{ENABLE: "true"})
    assert scheduler_settings(3, site, None, config_path=TWO).preemption is True
    assert f"preemption: on ({ENABLE} in {site}:3)" in capsys.readouterr().err
