"""The dev overlay (k8s/overlays/dev) made playable by `podman kube play` 4.3.1, and its probes run.

What podman 4.3.1 does with the rendered objects, found on this machine (`podman kube play --help`:
"Supported kinds are Pods, Deployments and PersistentVolumeClaims"; ConfigMaps in the same YAML feed
`envFrom`), and what `for_podman` therefore changes, each for the reason given in its table:

- kept: the ConfigMaps (renamed), the Deployments atout-api and atout-worker (renamed, image, ports
  and liveness probe adapted below);
- dropped: every Service and NetworkPolicy (DROPPED);
- converted: the StatefulSet atout-redis (a Pod and a PersistentVolumeClaim) and the Secret atout
  (a podman secret made by `podman secret create`), see CONVERTED;
- adapted inside the workloads: ADAPTED.

Everything is renamed with a per-run suffix (pods, secrets and volumes are the machine's, a second
checkout may be testing at the same time) and played on a network of the run's own.
"""

from __future__ import annotations

import base64
import copy
import json
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml
from podman_tools import podman

from service.runtime.embedded_redis import free_port

ROOT = Path(__file__).resolve().parents[2]
OVERLAY = ROOT / "k8s" / "overlays" / "dev"
# The manifests' image names (without their tags), which for_podman's `images` maps to local ones.
PROJECT_IMAGE = "localhost/atout"  # the base kustomization's newName for the image `atout`
REDIS_IMAGE = "redis"  # the overlay's redis:7.2-bookworm; no registry here: tests/image/redis.Containerfile

DROPPED = {
    "Service": "podman kube play makes no Services (no virtual IP, no load balancing): pods find each other "
    "by pod name on the run's network (aardvark-dns), so the Redis pod takes its Service's name; the API is "
    "reached on its published hostPort",
    "NetworkPolicy": "podman enforces no NetworkPolicy: the run's own network is the only isolation",
}
CONVERTED = {
    "StatefulSet": "not a kind podman 4.3.1 plays: its pod template becomes a Pod named like the Service "
    "(the REDIS_URL host) and its volumeClaimTemplate a PersistentVolumeClaim (a podman volume), named as "
    "the StatefulSet's first claim would be",
    "Secret": "podman 4.3.1 stores a Secret of the YAML as YAML, then its own envFrom secretRef reader "
    "refuses it ('secret … is not valid JSON'): the same data goes in by `podman secret create` as the JSON "
    "map of base64 values that reader takes",
}
ADAPTED = {
    "image": "the project's image as built here, and Redis from tests/image/redis.Containerfile (Debian "
    "bookworm's redis-server 7.0 on the same base) for redis:7.2-bookworm",
    "ports": "podman 4.3.1 publishes every containerPort on the host at the same number (0.0.0.0:8000, "
    ":9100, :6379): each gets hostIP 127.0.0.1 and a free hostPort",
    "livenessProbe": "podman 4.3.1 makes a livenessProbe the container's healthcheck (restart on failure); "
    "an httpGet one becomes `curl -f http://localhost:0/…` (a named port is left 0, and the image has no "
    "curl), and an exec one a shell line of its words joined by spaces (no quoting): an httpGet probe is "
    "rewritten as that shell line, python3 fetching the same path on the numbered port",
    "emptyDir": "podman 4.3.1 makes an emptyDir a volume named after the pod's volume (`tmp`), one for "
    "every pod that names it so (the API's and the worker's /tmp were one directory, and any other run's): "
    "each gets the pod's name as a suffix",
    "startupProbe, readinessProbe": "ignored by podman 4.3.1 (kept in the YAML): the test runs them as the "
    "kubelet would, from the manifest (`probe` below: httpGet on the pod's IP, exec with `podman exec`)",
}


def render() -> list[dict[str, Any]]:
    out = subprocess.run(
        ["kubectl", "kustomize", str(OVERLAY)], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


@dataclass(frozen=True)
class Workload:
    """One pod as podman names it, with the container's manifest, its ports by name (published on the
    host, in the container) and the pod's terminationGracePeriodSeconds (which podman 4.3.1 ignores)."""

    pod: str
    container: str
    spec: dict[str, Any]
    host_ports: dict[str, int]
    container_ports: dict[str, int]
    grace: int


@dataclass
class Played:
    documents: list[dict[str, Any]] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)  # podman secret name -> its JSON
    volumes: list[str] = field(default_factory=list)  # every podman volume the pods use
    claims: list[str] = field(default_factory=list)  # those of PersistentVolumeClaims: `kube down` keeps them
    workloads: dict[str, Workload] = field(default_factory=dict)  # by the manifest's name
    dropped: list[str] = field(default_factory=list)  # "Kind name"
    converted: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)  # the Secret's data, decoded


def for_podman(objects: list[dict[str, Any]], tag: str, images: dict[str, str]) -> Played:
    """The rendered overlay as podman 4.3.1 can play it (see the module's docstring), every name given
    the suffix `-tag`; `images` maps the manifests' image names to the local ones."""
    played = Played()
    suffix = f"-{tag}"
    services = [o["metadata"]["name"] for o in objects if o["kind"] == "Service"]
    for obj in copy.deepcopy(objects):
        kind, name = obj["kind"], obj["metadata"]["name"]
        obj["metadata"].pop("namespace", None)  # podman has none
        if kind in DROPPED:
            played.dropped.append(f"{kind} {name}")
        elif kind == "ConfigMap":
            obj["metadata"]["name"] = name + suffix
            played.documents.append(obj)
        elif kind == "Secret":
            data = {k: base64.b64decode(v).decode() for k, v in obj.get("data", {}).items()}
            data |= obj.get("stringData", {})
            for service in services:  # the Service's DNS name is now the pod's
                data = {k: v.replace(f"//{service}:", f"//{service}{suffix}:") for k, v in data.items()}
            played.env = data
            encoded = {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}
            played.secrets[name + suffix] = json.dumps(encoded)
            played.converted.append(f"{kind} {name}")
        elif kind == "Deployment":
            assert obj["spec"].get("replicas", 1) == 1, f"{name}: podman 4.3.1 plays one pod per Deployment"
            obj["metadata"]["name"] = name + suffix
            workload(played, name, f"{name}{suffix}-pod-0", obj["spec"]["template"]["spec"], suffix, images)
            played.documents.append(obj)
        elif kind == "StatefulSet":
            assert name in services, f"{name}: the StatefulSet's pod is found by its Service's name"
            spec = obj["spec"]["template"]["spec"]
            for claim in obj["spec"].get("volumeClaimTemplates", []):
                volume = f"{claim['metadata']['name']}-{name}{suffix}-0"
                pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": volume}}
                played.documents.append({**pvc, "spec": claim["spec"]})
                played.volumes.append(volume)
                played.claims.append(volume)
                spec.setdefault("volumes", []).append(
                    {"name": claim["metadata"]["name"], "persistentVolumeClaim": {"claimName": volume}}
                )
            pod_meta = {"name": name + suffix, "labels": obj["spec"]["template"]["metadata"]["labels"]}
            workload(played, name, name + suffix, spec, suffix, images)
            played.documents.append({"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": spec})
            played.converted.append(f"{kind} {name}")
        else:
            raise AssertionError(f"{kind} {name}: say what podman does with it (tests/image/podman_kube.py)")
    return played


def workload(
    played: Played, name: str, pod: str, spec: dict[str, Any], suffix: str, images: dict[str, str]
) -> None:
    """Adapt one pod spec in place (ADAPTED) and record it."""
    (container,) = spec["containers"]  # one container per pod in k8s/
    container["image"] = images[container["image"].rsplit(":", 1)[0]]
    for source in container.get("envFrom", []):
        for ref in ("configMapRef", "secretRef"):
            if ref in source:
                source[ref]["name"] += suffix
    host_ports, container_ports = {}, {}
    for port in container.get("ports", []):
        port["hostIP"], port["hostPort"] = "127.0.0.1", free_port()
        host_ports[port["name"]], container_ports[port["name"]] = port["hostPort"], port["containerPort"]
    for volume in spec.get("volumes", []):
        if "emptyDir" in volume:
            for mount in container.get("volumeMounts", []):
                if mount["name"] == volume["name"]:
                    mount["name"] = f"{volume['name']}-{pod}"
            volume["name"] = f"{volume['name']}-{pod}"
            played.volumes.append(volume["name"])
    original = copy.deepcopy(container)
    live = container.get("livenessProbe", {})
    if "httpGet" in live:
        get = live.pop("httpGet")
        port = container_ports[get["port"]] if isinstance(get["port"], str) else get["port"]
        url = f"http://127.0.0.1:{port}{get['path']}"
        code = f"import urllib.request as u; u.urlopen({url!r}, timeout={live.get('timeoutSeconds', 1)})"
        live["exec"] = {"command": [shlex.join(["python3", "-c", code])]}
    grace = spec.get("terminationGracePeriodSeconds", 30)
    where = Workload(pod, f"{pod}-{container['name']}", original, host_ports, container_ports, grace)
    played.workloads[name] = where


def pod_ip(pod: str, network: str) -> str:
    infra = podman("pod", "inspect", "--format", "{{.InfraContainerID}}", pod).stdout.strip()
    template = f'{{{{(index .NetworkSettings.Networks "{network}").IPAddress}}}}'
    address = podman("inspect", "--format", template, infra).stdout.strip()
    assert address, f"{pod} has no address on {network}"
    return address


def probe(kind: str, where: Workload, address: str) -> bool:
    """One run of the container's `kind` probe (startupProbe, readinessProbe, livenessProbe) as the
    manifest says it, the way the kubelet runs it: httpGet on the pod's IP, exec in the container."""
    spec = where.spec[kind]
    timeout = spec.get("timeoutSeconds", 1)
    if "httpGet" in spec:
        get = spec["httpGet"]
        port = where.container_ports[get["port"]] if isinstance(get["port"], str) else get["port"]
        try:
            status = httpx.get(f"http://{address}:{port}{get['path']}", timeout=timeout).status_code
        except httpx.HTTPError:
            return False
        return 200 <= status < 400
    try:
        done = podman("exec", where.container, *spec["exec"]["command"], timeout=timeout + 5, check=False)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def main() -> None:
    """The runbook's way to the same files (docs/operations.md, "Running the manifests with podman"):
    `python tests/image/podman_kube.py RUN-ID IMAGE REDIS-IMAGE` writes dev-for-podman.yaml and each
    secret as podman takes it (NAME.json, mode 0600) here, and prints what to stop and where the API is."""
    tag, image, redis = sys.argv[1:4]
    played = for_podman(render(), tag, {PROJECT_IMAGE: image, REDIS_IMAGE: redis})
    Path("dev-for-podman.yaml").write_text(yaml.safe_dump_all(played.documents, sort_keys=False))
    for name, data in played.secrets.items():
        secret = Path(f"{name}.json")
        secret.touch(mode=0o600)
        secret.write_text(data)
        print(f"podman secret create {name} {secret}")
    print(f"dropped: {', '.join(played.dropped)}; converted: {', '.join(played.converted)}")
    for where in played.workloads.values():
        ports = ", ".join(f"{name} 127.0.0.1:{port}" for name, port in where.host_ports.items())
        print(f"{where.container} (pod {where.pod}): {ports}; stop it with --time {where.grace}")
    print(f"volumes `podman kube down` keeps: {' '.join(played.claims)}")


if __name__ == "__main__":
    main()
