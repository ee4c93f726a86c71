"""The Kubernetes manifests (k8s/): every overlay renders with ``kubectl kustomize``, every object
validates strictly against the Kubernetes schemas (offline, ``kubernetes-validate``), and every
workload is hardened, probed and bounded. The dashboard only queries metrics the service exports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
OVERLAYS = ["dev", "prod"]
KUBERNETES_VERSION = "1.32"  # the kubectl on these machines; the oldest minor we target
KUBECTL = shutil.which("kubectl")

# Custom resources: kubernetes-validate knows only the built-in kinds. KEDA's ScaledObject and the
# Prometheus operator's ServiceMonitor and PodMonitor are validated against their publishers' schemas,
# vendored in tests/k8s/schemas/ (see its README). Any other custom kind would fail the test below
# until its schema is vendored or it is listed here, skipped by name with a reason.
SCHEMAS = Path(__file__).resolve().parent / "schemas"
CRD_SCHEMAS = {
    ("keda.sh/v1alpha1", "ScaledObject"): SCHEMAS / "scaledobject_v1alpha1.json",
    ("monitoring.coreos.com/v1", "ServiceMonitor"): SCHEMAS / "servicemonitor_v1.json",
    ("monitoring.coreos.com/v1", "PodMonitor"): SCHEMAS / "podmonitor_v1.json",
}
CRD_KINDS: dict[str, str] = {}  # kind -> why it is not validated (none today)
WORKLOAD_KINDS = {"Deployment", "StatefulSet"}

needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")


def render(overlay: str) -> list[dict[str, Any]]:
    assert KUBECTL is not None
    out = subprocess.run(
        [KUBECTL, "kustomize", str(K8S / "overlays" / overlay)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


@pytest.fixture(scope="module", params=OVERLAYS)
def rendered(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]]]:
    if KUBECTL is None:
        pytest.skip("kubectl is not installed")
    return request.param, render(request.param)


def of_kind(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == kind]


def named(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    found = [o for o in of_kind(objects, kind) if o["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind} {name}, found {len(found)}"
    return found[0]


def containers(workload: dict[str, Any]) -> list[dict[str, Any]]:
    spec = workload["spec"]["template"]["spec"]
    return [*spec.get("initContainers", []), *spec["containers"]]


def matches(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """A label selector (matchLabels and In/NotIn/Exists expressions) against a pod's labels."""
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for expr in selector.get("matchExpressions", []):
        key, op, values = expr["key"], expr["operator"], expr.get("values", [])
        ok = {
            "In": labels.get(key) in values,
            "NotIn": labels.get(key) not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }[op]
        if not ok:
            return False
    return True


def pod_labels(workload: dict[str, Any]) -> dict[str, str]:
    labels: dict[str, str] = workload["spec"]["template"]["metadata"]["labels"]
    return labels


# --- render and validate ----------------------------------------------------------------------


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_overlay_renders(overlay: str) -> None:
    objects = render(overlay)
    kinds = {o["kind"] for o in objects}
    assert {"Deployment", "Service", "ConfigMap", "NetworkPolicy"} <= kinds
    names = [(o["kind"], o["metadata"]["name"]) for o in objects]
    assert len(names) == len(set(names)), "an object is defined twice"


def test_every_object_validates_strictly(rendered: tuple[str, list[dict[str, Any]]]) -> None:
    import kubernetes_validate

    overlay, objects = rendered
    validated = 0
    for obj in objects:
        if obj["kind"] in CRD_KINDS:
            continue
        if (obj["apiVersion"], obj["kind"]) in CRD_SCHEMAS:
            validate_custom(obj)
            validated += 1
            continue
        try:
            kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            where = "/".join(str(p) for p in error.path)
            pytest.fail(f"{overlay}: {obj['kind']} {obj['metadata']['name']}: {where}: {error.message}")
        validated += 1
    assert validated >= 8, f"{overlay}: only {validated} objects validated"


def validate_custom(obj: dict[str, Any]) -> None:
    """A custom resource against its publisher's schema (strict: unknown fields fail)."""
    import jsonschema

    schema = json.loads(CRD_SCHEMAS[(obj["apiVersion"], obj["kind"])].read_text())
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(obj), key=str)
    assert not errors, f"{obj['kind']} {obj['metadata']['name']}: {errors[0].message}"
    spec = obj["spec"]  # the CRD's CEL rule, which JSON Schema cannot say
    if obj["kind"] == "ScaledObject" and "minReplicaCount" in spec:
        assert spec["minReplicaCount"] <= spec.get("maxReplicaCount", 100)


def test_the_custom_resource_schemas_are_strict() -> None:
    if KUBECTL is None:
        pytest.skip("kubectl is not installed")
    objects = render("prod")
    monitor = of_kind(objects, "ServiceMonitor")[0]
    typo = json.loads(json.dumps(monitor))
    typo["spec"]["endpoints"][0]["scrape_timeout"] = "10s"
    with pytest.raises(AssertionError, match="scrape_timeout"):
        validate_custom(typo)
    pods = of_kind(objects, "PodMonitor")[0]
    typo = json.loads(json.dumps(pods))
    typo["spec"]["endpoints"] = typo["spec"].pop("podMetricsEndpoints")  # a ServiceMonitor's field
    with pytest.raises(AssertionError):
        validate_custom(typo)
    scaled = of_kind(objects, "ScaledObject")[0]
    validate_custom(scaled)
    typo = json.loads(json.dumps(scaled))
    typo["spec"]["minReplicas"] = 1  # the HPA's name for it, not KEDA's
    with pytest.raises(AssertionError, match="minReplicas"):
        validate_custom(typo)
    empty = json.loads(json.dumps(scaled))
    empty["spec"]["triggers"] = []
    with pytest.raises(AssertionError):
        validate_custom(empty)


def test_a_broken_object_fails_validation() -> None:
    """The validator is strict: an unknown field and a wrong type are both caught."""
    import kubernetes_validate

    if KUBECTL is None:
        pytest.skip("kubectl is not installed")
    deployment = named(render("dev"), "Deployment", "atout-api")
    typo = json.loads(json.dumps(deployment))
    typo["spec"]["template"]["spec"]["containers"][0]["readinessprobe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(typo, KUBERNETES_VERSION, strict=True)
    wrong = json.loads(json.dumps(deployment))
    wrong["spec"]["replicas"] = "three"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(wrong, KUBERNETES_VERSION, strict=True)


@needs_kubectl
def test_every_custom_resource_has_a_schema_or_a_stated_reason() -> None:
    """No custom kind slips through unvalidated: each has a vendored schema or is skipped by name."""
    builtin_groups = {"v1", "apps/v1", "autoscaling/v2", "policy/v1", "networking.k8s.io/v1"}
    for overlay in OVERLAYS:
        for obj in render(overlay):
            key = (obj["apiVersion"], obj["kind"])
            if obj["apiVersion"] not in builtin_groups:
                assert key in CRD_SCHEMAS or obj["kind"] in CRD_KINDS, f"{overlay}: {key} is not validated"
    for path in CRD_SCHEMAS.values():
        assert json.loads(path.read_text())["required"] == ["spec"]


# --- every workload -----------------------------------------------------------------------------


def test_every_workload_is_hardened_probed_and_bounded(rendered: tuple[str, list[dict[str, Any]]]) -> None:
    overlay, objects = rendered
    workloads = [o for o in objects if o["kind"] in WORKLOAD_KINDS]
    assert workloads
    for workload in workloads:
        where = f"{overlay}: {workload['kind']} {workload['metadata']['name']}"
        pod = workload["spec"]["template"]["spec"]
        pod_security = pod.get("securityContext", {})
        assert pod_security.get("runAsNonRoot") is True, where
        assert pod_security.get("seccompProfile", {}).get("type") == "RuntimeDefault", where
        assert pod.get("automountServiceAccountToken") is False, where
        writable = {v["name"] for v in pod.get("volumes", [])}
        writable |= {t["metadata"]["name"] for t in workload["spec"].get("volumeClaimTemplates", [])}
        for container in containers(workload):
            here = f"{where} container {container['name']}"
            security = container.get("securityContext", {})
            assert security.get("readOnlyRootFilesystem") is True, here
            assert security.get("allowPrivilegeEscalation") is False, here
            assert security.get("capabilities", {}).get("drop") == ["ALL"], here
            assert "add" not in security.get("capabilities", {}), here
            assert security.get("privileged") is not True, here
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                assert probe in container, f"{here}: no {probe}"
            resources = container.get("resources", {})
            for bound in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(resources.get(bound, {})), f"{here}: {bound}"
            for mount in container.get("volumeMounts", []):
                assert mount["name"] in writable, here
            for volume in pod.get("volumes", []):
                if "emptyDir" in volume:
                    assert volume["emptyDir"].get("sizeLimit"), f"{here}: unbounded emptyDir {volume['name']}"


def test_probes_use_endpoints_that_exist(rendered: tuple[str, list[dict[str, Any]]]) -> None:
    """HTTP probes name a port of their container and a path the process really serves: the API's
    /healthz and /readyz (service/api/app.py), a worker's Prometheus /metrics (service/api/metrics.py)."""
    from service.api.app import routes
    from service.base.settings import Settings

    api_paths = {getattr(r, "path", None) for r in routes(Settings())} | {"/metrics"}
    overlay, objects = rendered
    for workload in (o for o in objects if o["kind"] in WORKLOAD_KINDS):
        for container in containers(workload):
            ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                get = container[probe].get("httpGet")
                if get is None:
                    assert "exec" in container[probe] or "tcpSocket" in container[probe]
                    continue
                assert get["port"] in ports or get["port"] in ports.values(), (overlay, container["name"])
                args = container.get("args", [])
                if "serve" in args:
                    assert get["path"] in api_paths, (overlay, get["path"])
                    assert container[probe] is not None
                else:
                    runs = "worker" in args or "matchmaker" in args  # both serve their /metrics
                    assert runs and get["path"] == "/metrics", (overlay, container["name"])
    config = named(objects, "ConfigMap", "atout-config")["data"]
    for workload in (o for o in objects if o["kind"] == "Deployment"):
        for container in containers(workload):
            if {"worker", "matchmaker"} & set(container.get("args", [])):
                port = next(p["containerPort"] for p in container["ports"] if p["name"] == "metrics")
                assert config["ATOUT_WORKER_METRICS_PORT"] == str(port)
                assert config["ATOUT_WORKER_METRICS_HOST"] == "0.0.0.0"


def test_commands_are_real_cli_invocations(rendered: tuple[str, list[dict[str, Any]]]) -> None:
    """Every container of ours runs a command `atout` parses (service/runtime/cli.py), on the atout image."""
    from service.runtime.cli import parser

    overlay, objects = rendered
    ours = 0
    for workload in (o for o in objects if o["kind"] in WORKLOAD_KINDS):
        for container in containers(workload):
            if not container["image"].startswith("localhost/atout:"):
                continue
            ours += 1
            args = container["args"]
            assert args[0] == "atout", (overlay, args)
            parsed = parser().parse_args(args[1:])
            assert parsed.command in {"serve", "worker", "matchmaker"}
            if parsed.command == "serve":
                assert parsed.host == "0.0.0.0"
    assert ours >= 2


def test_config_holds_real_settings_and_no_secret(rendered: tuple[str, list[dict[str, Any]]]) -> None:
    from service.base.settings import Settings, environment_name

    known = {environment_name(name) for name in Settings.model_fields}
    overlay, objects = rendered
    data = named(objects, "ConfigMap", "atout-config")["data"]
    assert data
    for key in data:
        assert key in known, f"{overlay}: {key} is not a setting of service/base/settings.py"
    assert not {"REDIS_URL", "ATOUT_ADMIN_TOKEN"} & set(data), "secrets belong in the Secret"
    for workload in (o for o in objects if o["kind"] == "Deployment"):
        for container in containers(workload):
            refs = {next(iter(ref)) for ref in container.get("envFrom", [])}
            assert refs == {"configMapRef", "secretRef"}, (overlay, workload["metadata"]["name"])
            secret = next(r["secretRef"]["name"] for r in container["envFrom"] if "secretRef" in r)
            if overlay == "dev":  # generated, with a placeholder token
                generated = named(objects, "Secret", secret)
                assert set(generated["data"]) == {"REDIS_URL", "ATOUT_ADMIN_TOKEN"}
            else:  # created by the operator, never committed
                assert secret == "atout" and not of_kind(objects, "Secret")


# --- dev ----------------------------------------------------------------------------------------


@needs_kubectl
def test_dev_has_one_redis_with_aof_on_a_volume_one_api_one_worker() -> None:
    objects = render("dev")
    (redis,) = of_kind(objects, "StatefulSet")
    assert redis["spec"]["replicas"] == 1
    (container,) = redis["spec"]["template"]["spec"]["containers"]
    args = container["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    data_dir = args[args.index("--dir") + 1]
    (claim,) = redis["spec"]["volumeClaimTemplates"]
    assert any(
        m["mountPath"] == data_dir and m["name"] == claim["metadata"]["name"]
        for m in container["volumeMounts"]
    )
    names = [d["metadata"]["name"] for d in of_kind(objects, "Deployment")]
    assert sorted(names) == ["atout-api", "atout-matchmaker", "atout-worker"]
    for deployment in of_kind(objects, "Deployment"):
        assert deployment["spec"]["replicas"] == 1
    secret = next(s for s in of_kind(objects, "Secret") if s["metadata"]["name"].startswith("atout-"))
    import base64

    url = base64.b64decode(secret["data"]["REDIS_URL"]).decode()
    service = next(
        s
        for s in of_kind(objects, "Service")
        if matches({"matchLabels": s["spec"]["selector"]}, pod_labels(redis))
    )
    assert url.startswith(f"redis://{service['metadata']['name']}:{service['spec']['ports'][0]['port']}/")


# --- prod ---------------------------------------------------------------------------------------


@needs_kubectl
def test_prod_api_is_replicated_spread_autoscaled_and_protected() -> None:
    objects = render("prod")
    api = named(objects, "Deployment", "atout-api")
    assert api["spec"]["replicas"] >= 3
    labels = pod_labels(api)
    spread = api["spec"]["template"]["spec"]["topologySpreadConstraints"]
    assert {c["topologyKey"] for c in spread} >= {"topology.kubernetes.io/zone", "kubernetes.io/hostname"}
    assert all(matches(c["labelSelector"], labels) for c in spread)
    (hpa,) = of_kind(objects, "HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "atout-api",
    }
    assert hpa["spec"]["minReplicas"] >= 3
    (pdb,) = of_kind(objects, "PodDisruptionBudget")
    assert matches(pdb["spec"]["selector"], labels)
    assert 1 <= pdb["spec"]["minAvailable"] < hpa["spec"]["minReplicas"]
    others = [d for d in of_kind(objects, "Deployment") if d is not api]
    assert not any(matches(pdb["spec"]["selector"], pod_labels(d)) for d in others)


@needs_kubectl
def test_prod_workers_per_queue_scaled_by_keda_on_their_rq_list() -> None:
    from service.base.settings import Settings
    from workers.jobs.queue import queues

    objects = render("prod")
    bot_queue = named(objects, "ConfigMap", "atout-config")["data"]["ATOUT_BOT_QUEUE"]
    workers = {
        d["metadata"]["name"]: d
        for d in of_kind(objects, "Deployment")
        if d["metadata"]["name"] not in ("atout-api", "atout-matchmaker")
    }
    assert set(workers) == {"atout-worker-fast", "atout-worker-expert", "atout-worker-webhooks"}
    assert named(objects, "Deployment", "atout-matchmaker")["spec"]["replicas"] == 2  # they race safely
    scaled = {s["spec"]["scaleTargetRef"]["name"]: s for s in of_kind(objects, "ScaledObject")}
    assert set(scaled) == set(workers)
    assert bot_queue == Settings().bot_queue
    for name, deployment in workers.items():
        (container,) = containers(deployment)
        which = container["args"][container["args"].index("--queues") + 1]
        assert name == f"atout-worker-{which}"
        (queue,) = queues(bot_queue, which, Settings().webhook_queue)
        (trigger,) = scaled[name]["spec"]["triggers"]
        assert trigger["type"] == "redis"
        assert trigger["metadata"]["listName"] == f"rq:queue:{queue}"
        assert int(trigger["metadata"]["listLength"]) >= 1
        assert scaled[name]["spec"]["minReplicaCount"] >= 1  # turn timers run on the fast queue
        assert scaled[name]["spec"]["maxReplicaCount"] > scaled[name]["spec"]["minReplicaCount"]
    assert {f"rq:queue:{q}" for q in queues(bot_queue, "all", Settings().webhook_queue)} == {
        s["spec"]["triggers"][0]["metadata"]["listName"] for s in scaled.values()
    }


@needs_kubectl
def test_network_policies_guard_redis_and_the_api() -> None:
    for overlay in OVERLAYS:
        objects = render(overlay)
        policies = of_kind(objects, "NetworkPolicy")
        api = named(objects, "Deployment", "atout-api")
        workers = [d for d in of_kind(objects, "Deployment") if d is not api]
        redis_pod = {"atout.dev/redis": "true", "app.kubernetes.io/component": "redis"}
        for redis in of_kind(objects, "StatefulSet"):
            assert matches({"matchLabels": {"atout.dev/redis": "true"}}, pod_labels(redis))
        on_redis = [p for p in policies if matches(p["spec"]["podSelector"], redis_pod)]
        assert on_redis, f"{overlay}: no NetworkPolicy selects Redis"
        peers = [peer for p in on_redis for rule in p["spec"]["ingress"] for peer in rule["from"]]
        pod_peers = [peer["podSelector"] for peer in peers if "namespaceSelector" not in peer]
        for workload in [api, *workers]:
            assert any(matches(s, pod_labels(workload)) for s in pod_peers), workload["metadata"]["name"]
        ingress_pod = {"app.kubernetes.io/name": "ingress-nginx"}
        assert not any(matches(s, ingress_pod) for s in pod_peers), (
            "the ingress controller must not reach Redis"
        )
        on_api = [p for p in policies if matches(p["spec"]["podSelector"], pod_labels(api))]
        assert on_api, f"{overlay}: no NetworkPolicy selects the API"
        api_peers = [peer for p in on_api for rule in p["spec"]["ingress"] for peer in rule["from"]]
        assert all("namespaceSelector" in peer for peer in api_peers), "only other namespaces' controllers"
        assert any(
            peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"] == "ingress-nginx"
            for peer in api_peers
        )
        for workload in workers:
            assert not any(
                peer.get("podSelector") and matches(peer["podSelector"], pod_labels(workload))
                for peer in api_peers
            )


@needs_kubectl
def test_prod_trusts_only_its_ingress_to_forward_client_addresses() -> None:
    """Issue 19: behind the ingress every client shared the controller's address (one cap of 100
    games for everyone) unless the API believes the controller's X-Forwarded-For."""
    from service.runtime.http_server import trusted_networks

    data = named(render("prod"), "ConfigMap", "atout-config")["data"]
    assert all(network.is_private for network in trusted_networks(data["ATOUT_TRUSTED_PROXIES"]))
    assert "ATOUT_TRUSTED_PROXIES" not in named(render("dev"), "ConfigMap", "atout-config")["data"]


@needs_kubectl
def test_prod_ingress_is_set_up_for_long_lived_streams() -> None:
    objects = render("prod")
    (ingress,) = of_kind(objects, "Ingress")
    notes = ingress["metadata"]["annotations"]
    assert notes["nginx.ingress.kubernetes.io/proxy-read-timeout"] == "3600"
    assert notes["nginx.ingress.kubernetes.io/proxy-send-timeout"] == "3600"
    assert notes["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"
    assert notes["nginx.ingress.kubernetes.io/websocket-services"] == "atout-api"
    backends = [p["backend"]["service"] for r in ingress["spec"]["rules"] for p in r["http"]["paths"]]
    routed = {p["path"] for r in ingress["spec"]["rules"] for p in r["http"]["paths"]}
    assert {"/v1", "/graphql", "/play", "/static"} <= routed
    assert not {"/", "/metrics", "/readyz"} & routed  # issue 19: the figures stay inside the cluster
    service = named(objects, "Service", "atout-api")
    assert all(
        b["name"] == "atout-api" and b["port"]["name"] in {p["name"] for p in service["spec"]["ports"]}
        for b in backends
    )


@needs_kubectl
def test_prod_scrapes_the_api_and_the_workers() -> None:
    objects = render("prod")
    (monitor,) = of_kind(objects, "ServiceMonitor")
    service = named(objects, "Service", "atout-api")
    assert matches(monitor["spec"]["selector"], service["metadata"]["labels"])
    assert [(e["port"], e["path"]) for e in monitor["spec"]["endpoints"]] == [("http", "/metrics")]
    assert "http" in {p["name"] for p in service["spec"]["ports"]}
    (pods,) = of_kind(objects, "PodMonitor")
    workers = [d for d in of_kind(objects, "Deployment") if d["metadata"]["name"].startswith("atout-worker")]
    assert workers and all(matches(pods["spec"]["selector"], pod_labels(w)) for w in workers)
    assert all(e["port"] == "metrics" for e in pods["spec"]["podMetricsEndpoints"])


# --- the Grafana dashboard ----------------------------------------------------------------------

DASHBOARD = K8S / "base" / "grafana-dashboard.json"
METRIC = re.compile(r"\b(atout_[a-z0-9_]+)")


def dashboard_metrics() -> set[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    exprs += [v["query"] for v in dashboard["templating"]["list"] if isinstance(v.get("query"), str)]
    return {name for expr in exprs for name in METRIC.findall(expr)}


def test_dashboard_queries_only_exported_metrics(client: Any, redis_url: str) -> None:
    """Every metric name in the dashboard's PromQL is one the service exports: the API's /metrics
    (per-app, per-process and read-from-Redis families) scraped from a real app on a real Redis."""
    from service.base import counters as metrics

    text = client.get("/metrics").text
    exported: set[str] = set()
    families = [*text_string_to_metric_families(text)]
    for registry in (metrics.PROCESS,):  # labelled families with no sample yet are still exported
        families += list(registry.collect())
    for family in families:
        suffixes = {
            "counter": ["_total", "_created"],
            "histogram": ["_bucket", "_sum", "_count", "_created"],
            "gauge": [""],
        }.get(family.type, [""])
        exported |= {family.name + s for s in suffixes}
    used = dashboard_metrics()
    wanted = {
        "atout_http_request_duration_seconds_bucket",  # action latency by route
        "atout_errors_total",  # errors by code
        "atout_active_games",
        "atout_open_streams",
        "atout_queue_depth",
        "atout_queue_oldest_job_age_seconds",
        "atout_bot_decision_seconds_bucket",
        "atout_redis_errors_total",
    }
    assert wanted <= used, f"dashboard lacks {wanted - used}"
    assert used <= exported, f"the dashboard queries metrics the service does not export: {used - exported}"


def test_dashboard_is_shipped_as_a_labelled_configmap(rendered: tuple[str, list[dict[str, Any]]]) -> None:
    _overlay, objects = rendered
    config = named(objects, "ConfigMap", "atout-grafana-dashboard")
    assert config["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(config["data"]["atout.json"]) == json.loads(DASHBOARD.read_text())
    panels = json.loads(DASHBOARD.read_text())["panels"]
    assert len({p["id"] for p in panels}) == len(panels)
