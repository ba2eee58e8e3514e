#!/usr/bin/env python3
"""The REST contract api/openapi.yaml against the real daemon.

Usage: openapi_conformance_test.py BENCHD OPENAPI_YAML CONTROL_SOURCE_DIR[:MORE_SOURCE_DIRS]

Starts `BENCHD serve` on an ephemeral loopback port with its state in a temporary folder,
calls every operation of the spec (successes and the error cases the daemon really produces,
plus a real short run with its live events, metrics, results, winners and comparison, and a
capacity row's search with its trials and trial events) and
checks every answer against the spec: the status must be declared for the operation (or be one
of the shared responses of components/responses for requests that match no operation), the
Content-Type must be one of the declared media types, declared required header fields must be
there, and a JSON body (events' data too) must validate against the declared schema. Then it
checks coverage both ways: every operation of the spec was called, and every route the sources
register (router.add("METHOD", "PATH") in the source folders' *.cpp: the control API's and the
agent's) is in the spec and the reverse. Finally SIGTERM must stop the daemon with exit code 0.

Needs python3 with PyYAML and jsonschema (Debian 12: python3-yaml, python3-jsonschema 4.10; newer
jsonschema works too). Exit code 0 when everything conforms; otherwise every failure is printed
with the operation, the status and the JSON path at fault.
"""

import os
import sys

try:
    import jsonschema
    import yaml
except ImportError as missing:
    # A python3 first on PATH without them (e.g. pyenv's): Debian's own has them once
    # scripts/install-deps.sh installed python3-yaml and python3-jsonschema.
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and os.access(
            "/usr/bin/python3", os.X_OK) and not os.environ.get("BENCHD_OPENAPI_REEXEC"):
        os.environ["BENCHD_OPENAPI_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit(f"openapi conformance: {missing}; install python3-yaml and python3-jsonschema "
             "(scripts/install-deps.sh)")

import glob
import http.client
import json
import queue
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import traceback
import urllib.parse
from jsonschema import Draft202012Validator

HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
RUN_BODY = {"repeat": 1, "scenarioFile": "scenarios-ci.csv", "approaches": ["callbacks-asio"],
            "warmupSeconds": 0, "testSeconds": 1}
GOOD_CSV = ("scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,"
            "requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds\n"
            "conformance-get-time,get-time.js,,0,0,5,50,0,1\n")
BAD_CSV = GOOD_CSV.replace(",0,0,5,50,0,1", ",0,0,abc,50,0,1")  # line 2, column 6
# A capacity row against a worker of known capacity (benchd.max_rate): a search of a few trials.
CAPACITY_CSV = ("scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,"
                "requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds,capacityGoal\n"
                "conformance-capacity,get-time-arrival-rate.js,,0,0,50,200,1,1,p99<=50ms\n")
CAPACITY_RUN_BODY = {"repeat": 1, "scenarioFile": "conformance-capacity.csv",
                     "approaches": ["callbacks-asio[benchd.max_rate=400]"],
                     "capacityResolutionPercent": 25}
MAX_BODY_BYTES = 4096


def log(message):
    print(message, flush=True)


# ---- the spec ----------------------------------------------------------------------------------

def media_type_parts(value):
    """'Text/Plain; Version=0.0.4; charset=UTF-8' -> ('text/plain', {'version': '0.0.4', ...})."""
    pieces = [piece.strip() for piece in value.split(";")]
    params = {}
    for piece in pieces[1:]:
        if piece:
            name, _, val = piece.partition("=")
            params[name.strip().lower()] = val.strip().strip('"').lower()
    return pieces[0].lower(), params


def is_json_media(base):
    return base == "application/json" or base.endswith("+json")


def json_path(parts):
    text = "$"
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def shorten(text, limit=300):
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "..."


class Spec:
    def __init__(self, path):
        with open(path, encoding="utf-8") as stream:
            self.doc = yaml.safe_load(stream)
        self.components = self.doc.get("components", {})
        self._validators = {}
        # (METHOD, template) -> operation with the path item's parameters merged in.
        self.operations = {}
        for template, item in self.doc.get("paths", {}).items():
            for method in HTTP_METHODS:
                if method in item:
                    operation = dict(item[method])
                    operation["parameters"] = list(item.get("parameters", [])) + list(
                        operation.get("parameters", []))
                    self.operations[(method.upper(), template)] = operation

    def resolve(self, node):
        """Follows a local $ref (Reference Object) to the object it names."""
        while isinstance(node, dict) and set(node) == {"$ref"}:
            node = self.pointer(node["$ref"])
        return node

    def pointer(self, ref):
        if not ref.startswith("#/"):
            raise ValueError(f"only local references are supported, got {ref}")
        node = self.doc
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def validator(self, schema):
        """A Draft 2020-12 validator for `schema`, whose '#/components/...' refs resolve
        against the whole document (works with jsonschema 4.10 and newer)."""
        key = json.dumps(schema, sort_keys=True)
        if key not in self._validators:
            root = {"components": self.components, "allOf": [schema]}
            self._validators[key] = Draft202012Validator(root)
        return self._validators[key]

    def errors(self, schema, instance):
        """Leaf validation errors as 'JSON path: message' lines (empty when valid)."""
        leaves = []

        def walk(error):
            if error.context:
                for child in error.context:
                    walk(child)
            else:
                leaves.append(error)

        for error in self.validator(schema).iter_errors(instance):
            walk(error)
        # A member that failed its own schema also shows up as "unevaluated" one level up: only
        # mention those when nothing else is wrong.
        if any(error.validator != "unevaluatedProperties" for error in leaves):
            leaves = [error for error in leaves if error.validator != "unevaluatedProperties"]
        lines = []
        for error in leaves[:10]:
            schema_path = "/".join(str(part) for part in list(error.absolute_schema_path)[2:])
            lines.append(f"{json_path(error.absolute_path)}: {shorten(error.message, 240)} "
                         f"(schema {schema_path})")
        if len(leaves) > 10:
            lines.append(f"... and {len(leaves) - 10} more")
        return lines


# ---- the daemon and HTTP -----------------------------------------------------------------------

class Reply:
    def __init__(self, method, target, status, headers, body):
        self.method = method
        self.target = target
        self.status = status
        self.headers = headers  # list of (name, value)
        self.body = body

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def json(self):
        return json.loads(self.body.decode("utf-8"))

    def describe(self):
        return f"{self.method} {self.target} -> {self.status}"


class Daemon:
    def __init__(self, binary, folder):
        self.folder = folder
        self.state_dir = os.path.join(folder, "state")
        config = os.path.join(folder, "benchd.conf")
        with open(config, "w", encoding="utf-8") as out:
            out.write(f"port = 0\nstate_dir = {self.state_dir}\nmax_body_bytes = {MAX_BODY_BYTES}\n"
                      "max_queued = 1\nmax_streams = 1\nagent_roles = server\n")
        self.stderr_path = os.path.join(folder, "benchd.stderr")
        self.stderr = open(self.stderr_path, "w", encoding="utf-8")
        self.process = subprocess.Popen([binary, "serve", "--config", config],
                                        stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        lines = queue.Queue()

        def read_stdout():
            for line in self.process.stdout:
                lines.put(line)

        threading.Thread(target=read_stdout, daemon=True).start()
        self.port = None
        deadline = time.monotonic() + 60
        while self.port is None and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if match:
                self.port = int(match.group(1))
        if self.port is None:
            raise RuntimeError("benchd serve did not say where it listens:\n" + self.stderr_text())
        with open(os.path.join(self.state_dir, "token"), encoding="utf-8") as token_file:
            self.token = token_file.readline().strip()

    def stderr_text(self):
        self.stderr.flush()
        with open(self.stderr_path, encoding="utf-8", errors="replace") as stream:
            return stream.read()[-4000:]

    def stop(self, timeout=30):
        """SIGTERM; the exit code, or None when it did not exit in time (then it is killed)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                return None
        return self.process.returncode

    def request(self, method, target, body=None, headers=None, token=True, host=None,
                skip_host=False, timeout=30):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            if not skip_host:
                connection.putheader("Host", host or f"127.0.0.1:{self.port}")
            if token is True:
                connection.putheader("Authorization", f"Bearer {self.token}")
            elif token:
                connection.putheader("Authorization", token)
            for name, value in (headers or {}).items():
                connection.putheader(name, value)
            if body is not None:
                if isinstance(body, str):
                    body = body.encode("utf-8")
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            data = response.read()
            return Reply(method, target, response.status, response.getheaders(), data)
        finally:
            connection.close()

    def open_stream(self, target, last_event_id=None, timeout=60):
        """GET `target` and return (connection, response) without reading the body."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        connection.request("GET", target, headers=headers)
        return connection, connection.getresponse()

    def raw_http10(self, target):
        """An HTTP/1.0 GET (http.client always speaks 1.1)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as sock:
            sock.sendall((f"GET {target} HTTP/1.0\r\nHost: 127.0.0.1:{self.port}\r\n"
                          f"Authorization: Bearer {self.token}\r\n\r\n").encode())
            response = http.client.HTTPResponse(sock)
            response.begin()
            data = response.read()
            return Reply("GET", target + " (HTTP/1.0)", response.status, response.getheaders(),
                         data)


def read_events(response, on_open=None):
    """Reads a text/event-stream to its end: (events, comments). Each event is a dict with
    id (None when the event had no id line), event, data and retry."""
    events, comments = [], []
    current = {"id": None, "event": None, "data": [], "retry": None}
    if on_open:
        on_open()
    while True:
        raw = response.readline()
        if not raw:
            break
        line = raw.decode("utf-8")
        if line.endswith("\r\n"):
            line = line[:-2]
        elif line.endswith("\n") or line.endswith("\r"):
            line = line[:-1]
        if line == "":
            if current["data"]:
                events.append({"id": current["id"], "event": current["event"] or "message",
                               "data": "\n".join(current["data"]), "retry": current["retry"]})
            current = {"id": None, "event": None, "data": [], "retry": None}
            continue
        if line.startswith(":"):
            comments.append(line[1:].strip())
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            current["data"].append(value)
        elif name in ("id", "event", "retry"):
            current[name] = value
    return events, comments


# ---- the checks --------------------------------------------------------------------------------

class Conformance:
    def __init__(self, spec, daemon):
        self.spec = spec
        self.daemon = daemon
        self.failures = []
        self.repeats = {}
        self.exercised = {}  # (METHOD, template) -> {status: count}
        self.shared_seen = {}  # component response name -> {status}

    def fail(self, message):
        """Records a failure; the same one seen again (polling) is only counted."""
        if message in self.failures:
            self.repeats[message] = self.repeats.get(message, 1) + 1
            return
        self.failures.append(message)
        log("FAIL: " + message)

    # -- one response against the spec --

    def check(self, operation, reply, expect=None, stream=False):
        """Checks `reply` against `operation` ((METHOD, template), or a components/responses
        name for requests that match no operation). Returns the parsed JSON body (or None)."""
        if isinstance(operation, tuple):
            label = f"{operation[0]} {operation[1]}"
            if operation not in self.spec.operations:
                self.fail(f"{label} ({reply.describe()}): the operation is not in the spec")
                return None
            declared = self.spec.operations[operation].get("responses", {})
            self.exercised.setdefault(operation, {})
            self.exercised[operation][reply.status] = (
                self.exercised[operation].get(reply.status, 0) + 1)
            response = declared.get(str(reply.status))
            if response is None:
                self.fail(f"{label} ({reply.describe()}): status {reply.status} is not declared "
                          f"(declared: {', '.join(sorted(declared))}); body: "
                          f"{shorten(reply.body.decode('utf-8', 'replace'))}")
                return None
        else:
            label = f"components/responses/{operation}"
            self.shared_seen.setdefault(operation, set()).add(reply.status)
            response = self.spec.components["responses"][operation]
        where = f"{label} ({reply.describe()})"
        if expect is not None:
            wanted = expect if isinstance(expect, (set, frozenset)) else {expect}
            if reply.status not in wanted:
                self.fail(f"{where}: expected status {sorted(wanted)}; body: "
                          f"{shorten(reply.body.decode('utf-8', 'replace'))}")
        response = self.spec.resolve(response)

        for name, header in (response.get("headers") or {}).items():
            header = self.spec.resolve(header)
            value = reply.header(name)
            if value is None:
                if header.get("required"):
                    self.fail(f"{where}: the required header field {name} is missing")
                continue
            if "schema" in header:
                for line in self.spec.errors(header["schema"], value):
                    self.fail(f"{where}: header {name}: {value!r}: {line}")

        content = response.get("content")
        content_type = reply.header("Content-Type")
        head = reply.method == "HEAD"
        if not content:
            if reply.body:
                self.fail(f"{where}: the spec declares no content, got {len(reply.body)} bytes "
                          f"of {content_type}")
            return None
        if content_type is None:
            self.fail(f"{where}: no Content-Type; declared {sorted(content)}")
            return None
        base, params = media_type_parts(content_type)
        media = None
        for key, candidate in content.items():
            key_base, key_params = media_type_parts(key)
            if key_base == base and key_params == params:
                media = candidate
                break
        if media is None:
            self.fail(f"{where}: Content-Type {content_type!r} is not declared "
                      f"(declared: {sorted(content)})")
            return None
        if stream or head or not is_json_media(base):
            if not stream and not head:
                try:
                    reply.body.decode("utf-8")
                except UnicodeDecodeError:
                    if base.startswith("text/"):
                        self.fail(f"{where}: the {base} body is not UTF-8")
            return None
        try:
            document = reply.json()
        except ValueError as error:
            self.fail(f"{where}: the body is not JSON ({error}): {shorten(reply.body)}")
            return None
        if "schema" in media:
            for line in self.spec.errors(media["schema"], document):
                self.fail(f"{where}: {line}")
        if base == "application/problem+json" and isinstance(document, dict) and \
                document.get("status") != reply.status:
            self.fail(f"{where}: the problem's status member is {document.get('status')!r}")
        return document

    def call(self, operation, target, expect, method=None, **kwargs):
        """Sends a request for `operation` and checks the answer; (reply, parsed JSON)."""
        if method is None:
            method = operation[0] if isinstance(operation, tuple) else "GET"
        reply = self.daemon.request(method, target, **kwargs)
        return reply, self.check(operation, reply, expect)

    # -- event streams --

    def check_events(self, where, events, from_start):
        """Every event's data against its schema (x-event-schemas of getRunEvents); ids
        increase (1, 2, 3, ... from the start); the last event is `end`."""
        media = self.spec.operations[("GET", "/api/v1/runs/{id}/events")]["responses"]["200"][
            "content"]["text/event-stream"]
        schemas = media["x-event-schemas"]
        previous = 0
        for index, event in enumerate(events):
            label = f"{where}: event #{index + 1} ({event['event']}, id {event['id']})"
            if event["event"] not in schemas:
                self.fail(f"{label}: the event type is not in x-event-schemas")
                continue
            try:
                data = json.loads(event["data"])
            except ValueError as error:
                self.fail(f"{label}: data is not JSON ({error})")
                continue
            for line in self.spec.errors({"$ref": schemas[event["event"]]}, data):
                self.fail(f"{label}: {line}")
            if event["id"] is not None:
                if not event["id"].isdigit():
                    self.fail(f"{label}: the id is not a whole number")
                    continue
                sequence = int(event["id"])
                if sequence <= previous or (from_start and sequence != previous + 1):
                    self.fail(f"{label}: id {sequence} after {previous}")
                previous = sequence
        if not events or events[-1]["event"] != "end":
            self.fail(f"{where}: the stream did not end with an end event "
                      f"({[event['event'] for event in events][-3:]})")

    # -- Prometheus text --

    def check_metrics(self, reply):
        """The exposition text against x-metric-families; the families present."""
        where = f"GET /metrics ({reply.describe()})"
        media = self.spec.operations[("GET", "/metrics")]["responses"]["200"]["content"]
        families = {family["name"]: family
                    for family in next(iter(media.values()))["x-metric-families"]}
        present = set()
        if reply.status != 200:
            return present
        text = reply.body.decode("utf-8")
        problems = parse_exposition(text, families, present)
        for problem in problems:
            self.fail(f"{where}: {problem}")
        for name, family in families.items():
            if family["present"] == "always" and name not in present:
                self.fail(f"{where}: the family {name} is missing")
        return present


def parse_exposition(text, families, present):
    """Checks Prometheus text format 0.0.4 against the declared families; fills `present`."""
    problems = []
    if text and not text.endswith("\n"):
        problems.append("the text does not end with a line feed")
    types = {}
    sample_line = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$")
    label_pair = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')
    for number, line in enumerate(text.split("\n")[:-1], start=1):
        if not line:
            continue
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            parts = line.split(" ", 3)
            if len(parts) < 4:
                problems.append(f"line {number}: {line!r} is not '# HELP|TYPE name text'")
                continue
            if parts[1] == "TYPE":
                types[parts[2]] = parts[3]
            continue
        if line.startswith("#"):
            continue
        match = sample_line.match(line)
        if not match:
            problems.append(f"line {number}: {line!r} is not a sample")
            continue
        name, labels_text, value = match.groups()
        labels = []
        if labels_text:
            position = 0
            while position < len(labels_text):
                pair = label_pair.match(labels_text, position)
                if not pair:
                    problems.append(f"line {number}: bad labels {labels_text!r}")
                    break
                labels.append(pair.group(1))
                position = pair.end()
        if value not in ("NaN", "+Inf", "-Inf"):
            try:
                float(value)
            except ValueError:
                problems.append(f"line {number}: the value {value!r} is not a number")
        present.add(name)
        family = families.get(name)
        if family is None:
            problems.append(f"line {number}: the family {name} is not in x-metric-families")
            continue
        if name not in types:
            problems.append(f"line {number}: {name} has no # TYPE line before its samples")
        elif types[name] != family["type"]:
            problems.append(f"line {number}: {name} is a {types[name]}, declared {family['type']}")
        if sorted(labels) != sorted(family["labels"]):
            problems.append(f"line {number}: {name} has labels {labels}, declared "
                            f"{family['labels']}")
    return problems


# ---- static checks -----------------------------------------------------------------------------

def static_checks(conformance, source_dir):
    spec = conformance.spec
    doc = spec.doc
    if doc.get("openapi") != "3.1.0":
        conformance.fail(f"openapi is {doc.get('openapi')!r}, expected 3.1.0")
    if not any(server.get("url") == "http://127.0.0.1:7878" for server in doc.get("servers", [])):
        conformance.fail("servers does not list http://127.0.0.1:7878")
    for name, schema in spec.components.get("schemas", {}).items():
        try:
            Draft202012Validator.check_schema(schema)
        except jsonschema.exceptions.SchemaError as error:
            conformance.fail(f"components/schemas/{name} is not a valid schema: {error.message}")
    operation_ids = set()
    for (method, template), operation in spec.operations.items():
        label = f"{method} {template}"
        for member in ("operationId", "summary", "responses"):
            if member not in operation:
                conformance.fail(f"{label}: no {member}")
        if operation.get("operationId") in operation_ids:
            conformance.fail(f"{label}: operationId {operation.get('operationId')} is used twice")
        operation_ids.add(operation.get("operationId"))
        security = operation.get("security", doc.get("security"))
        public = template == "/api/v1/health"
        if public != (security == []):
            conformance.fail(f"{label}: security is {security}, expected "
                             f"{'none' if public else 'bearerAuth'}")
        if not public and "401" not in operation.get("responses", {}):
            conformance.fail(f"{label}: 401 is not declared")
        declared = {spec.resolve(p)["name"] for p in operation["parameters"]
                    if spec.resolve(p)["in"] == "path"}
        in_template = set(re.findall(r"\{([^}]+)\}", template))
        if declared != in_template:
            conformance.fail(f"{label}: path parameters {sorted(declared)} != template "
                             f"{sorted(in_template)}")
        # Examples must be true too.
        bodies = [operation.get("requestBody", {})] + [
            spec.resolve(r) for r in operation.get("responses", {}).values()]
        for body in bodies:
            for media_name, media in (spec.resolve(body).get("content") or {}).items():
                if "example" in media and "schema" in media and \
                        is_json_media(media_type_parts(media_name)[0]):
                    for line in spec.errors(media["schema"], media["example"]):
                        conformance.fail(f"{label}: example of {media_name}: {line}")
    for name, response in spec.components.get("responses", {}).items():
        for media_name, media in (response.get("content") or {}).items():
            if "example" in media and "schema" in media:
                for line in spec.errors(media["schema"], media["example"]):
                    conformance.fail(f"components/responses/{name}: example: {line}")
    for name, schema in spec.components.get("schemas", {}).items():
        if "example" in schema:
            for line in spec.errors({"$ref": f"#/components/schemas/{name}"}, schema["example"]):
                conformance.fail(f"components/schemas/{name}: example: {line}")
    metrics_media = spec.operations[("GET", "/metrics")]["responses"]["200"]["content"]
    for media in metrics_media.values():
        families = {family["name"]: family for family in media["x-metric-families"]}
        for problem in parse_exposition(media.get("example", ""), families, set()):
            conformance.fail(f"GET /metrics: example: {problem}")

    # The routes in the sources, both ways.
    routes = set()
    for path in sorted(path for folder in source_dir.split(":")
                       for path in glob.glob(os.path.join(folder, "*.cpp"))):
        with open(path, encoding="utf-8") as source:
            for match in re.finditer(r'router\.add\(\s*"([A-Z]+)"\s*,\s*"([^"]+)"', source.read()):
                routes.add((match.group(1), match.group(2)))
    if not routes:
        conformance.fail(f"no router.add(\"METHOD\", \"PATH\") found in {source_dir}/*.cpp")
    for route in sorted(routes - set(spec.operations)):
        conformance.fail(f"the route {route[0]} {route[1]} is registered in the sources but not "
                         "in the spec")
    for operation in sorted(set(spec.operations) - routes):
        conformance.fail(f"the spec's {operation[0]} {operation[1]} is not registered in "
                         f"{source_dir}")
    log(f"static: {len(spec.operations)} operations in the spec, {len(routes)} routes in the "
        "sources")


# ---- the scenario --------------------------------------------------------------------------------

def sample_target(template):
    values = {"id": "999999", "name": "x.csv", "scenario": "s", "approach": "a", "file": "f.png",
              "folder": "d"}
    return re.sub(r"\{([^}]+)\}", lambda m: values[m.group(1)], template)


def quote(segment):
    return urllib.parse.quote(segment, safe="")


def poll(check, timeout, interval=0.2):
    """Calls check() until it returns something truthy or `timeout` passes; its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def exercise(c, project_dir):
    d = c.daemon
    spec = c.spec
    ops = spec.operations

    # -- every operation: token, Host and target checks come before any handler --
    c.call(("GET", "/api/v1/health"), "/api/v1/health", 200, token=None)
    c.call(("GET", "/api/v1/health"), "/api/v1/health", 400, token=None, skip_host=True)
    for (method, template) in sorted(ops):
        target = sample_target(template)
        if template != "/api/v1/health":
            c.call((method, template), target, 401, token=None)
        c.call((method, template), target, 421, host="evil.example")
        if "{" in template:
            first = re.search(r"\{[^}]+\}", template).group(0)
            traversal = template.replace(first, "%2e%2e", 1)
            c.call((method, template), sample_target(traversal), 400)
    c.call(("GET", "/api/v1/version"), "/api/v1/version", 401, token="Bearer wrong-token")
    c.call(("GET", "/api/v1/version"), "/api/v1/version", 401, token="Basic dXNlcjpwYXNz")

    # -- requests that match no operation: the shared responses --
    c.call("UnknownRoute", "/api/v1/nothing-here", 404)
    c.call("UnknownRoute", "/api/v1/runs/", 404)  # a trailing '/' is another path
    for template in sorted({template for (_, template) in ops}):
        methods = {method for (method, path) in ops if path == template}
        if "GET" in methods:
            methods.add("HEAD")
        reply, _ = c.call("MethodNotAllowed", sample_target(template), 405, method="PATCH",
                          token=template != "/api/v1/health")
        allow = sorted(m.strip() for m in (reply.header("Allow") or "").split(","))
        if allow != sorted(methods):
            c.fail(f"PATCH {template}: Allow is {reply.header('Allow')!r}, the spec has "
                   f"{', '.join(sorted(methods))}")
    c.call("HeaderTooLarge", "/api/v1/version", 431, headers={"X-Padding": "a" * 17000})

    # -- system --
    _, version = c.call(("GET", "/api/v1/version"), "/api/v1/version", 200)
    head = d.request("HEAD", "/api/v1/version")
    c.check(("GET", "/api/v1/version"), head, 200)
    if head.body:
        c.fail("HEAD /api/v1/version: the answer has a body")
    c.call(("GET", "/api/v1/agent"), "/api/v1/agent", 401, token=None)
    _, about = c.call(("GET", "/api/v1/agent"), "/api/v1/agent", 200)
    if about and version and about.get("benchd") != version.get("benchd"):
        c.fail(f"GET /api/v1/agent: benchd {about.get('benchd')} is not {version.get('benchd')}")
    _, clock = c.call(("GET", "/api/v1/agent/clock"), "/api/v1/agent/clock", 200)
    if clock and clock["sentEpochMicros"] < clock["receivedEpochMicros"]:
        c.fail(f"GET /api/v1/agent/clock: sent before it was received: {clock}")
    workers = ("POST", "/api/v1/agent/workers")
    c.call(workers, "/api/v1/agent/workers", 400, body=b'{"approach":"../x"}')
    c.call(workers, "/api/v1/agent/workers", 404, body=b'{"approach":"no-such-plugin"}')
    _, started = c.call(workers, "/api/v1/agent/workers", 201,
                        body=b'{"approach":"callbacks-asio","threads":1}')
    worker = ("GET", "/api/v1/agent/workers/{id}")
    c.call(worker, "/api/v1/agent/workers/w999", 404)
    if started:
        _, state = c.call(worker, f"/api/v1/agent/workers/{started['id']}", 200)
        if state and not state.get("alive"):
            c.fail(f"GET /api/v1/agent/workers/{started['id']}: not alive: {state}")
        c.call(("DELETE", "/api/v1/agent/workers/{id}"),
               f"/api/v1/agent/workers/{started['id']}", 200)
    c.call(("DELETE", "/api/v1/agent/workers/{id}"), "/api/v1/agent/workers/w999", 404)
    _, catalog = c.call(("GET", "/api/v1/approaches"), "/api/v1/approaches", 200)
    if catalog and "callbacks-asio" not in [a["name"] for a in catalog.get("accepted", [])]:
        c.fail(f"GET /api/v1/approaches: callbacks-asio is not accepted: {shorten(catalog)}")
    c.call(("POST", "/api/v1/approaches/rescan"), "/api/v1/approaches/rescan", 200, timeout=60)
    reply, _ = c.call(("GET", "/metrics"), "/metrics", 200)
    idle = c.check_metrics(reply)
    if any(name.startswith("benchd_run_info") for name in idle):
        c.fail("GET /metrics: run families while no run runs")
    if version and not re.search(r'benchd_build_info\{version="' + re.escape(version["benchd"]),
                                 reply.body.decode()):
        c.fail("GET /metrics: benchd_build_info does not carry the version of /api/v1/version")

    # -- scenario files --
    files_op = ("GET", "/api/v1/scenario-files")
    file_get = ("GET", "/api/v1/scenario-files/{name}")
    file_put = ("PUT", "/api/v1/scenario-files/{name}")
    file_delete = ("DELETE", "/api/v1/scenario-files/{name}")
    _, listing = c.call(files_op, "/api/v1/scenario-files", 200)
    names = [entry["name"] for entry in (listing or {}).get("files", [])]
    if "scenarios-ci.csv" not in names:
        c.fail(f"GET /api/v1/scenario-files: no scenarios-ci.csv in {names}")
    _, ci_file = c.call(file_get, "/api/v1/scenario-files/scenarios-ci.csv", 200)
    if ci_file and ci_file.get("rowCount") != len(ci_file.get("rows", [])):
        c.fail("GET /api/v1/scenario-files/scenarios-ci.csv: rowCount is not the number of rows")
    reply, _ = c.call(file_get, "/api/v1/scenario-files/scenarios-ci.csv", 200,
                      headers={"Accept": "text/csv"})
    with open(os.path.join(project_dir, "scenarios", "scenarios-ci.csv"), "rb") as original:
        if reply.body != original.read():
            c.fail("GET /api/v1/scenario-files/scenarios-ci.csv (Accept: text/csv) is not the file")
    c.call(file_get, "/api/v1/scenario-files/no-such-file.csv", 404)
    c.call(file_get, "/api/v1/scenario-files/a%2Fb.csv", 400)  # encoded-separator
    upload = "/api/v1/scenario-files/conformance-upload.csv"
    csv_type = {"Content-Type": "text/csv"}
    _, problem = c.call(file_put, upload, 400, body=BAD_CSV, headers=csv_type)
    if problem and (problem.get("field"), problem.get("line"), problem.get("column")) != (
            "body", 2, 6):
        c.fail(f"PUT {upload} (bad row): expected field body, line 2, column 6: {problem}")
    _, problem = c.call(file_put, "/api/v1/scenario-files/no-extension", 400, body=GOOD_CSV,
                        headers=csv_type)
    if problem and problem.get("field") != "name":
        c.fail(f"PUT .../no-extension: expected field name: {problem}")
    c.call(file_put, "/api/v1/scenario-files/scenarios-ci.csv", 409, body=GOOD_CSV,
           headers=csv_type)
    reply, _ = c.call(file_put, upload, 415, body=GOOD_CSV,
                      headers={"Content-Type": "application/json"})
    if reply.header("Accept-Post") != "text/csv":
        c.fail(f"PUT {upload} (JSON): Accept-Post is {reply.header('Accept-Post')!r}")
    c.call(file_put, upload, 413, body=GOOD_CSV + "#" * MAX_BODY_BYTES + "\n", headers=csv_type)
    reply, created = c.call(file_put, upload, 201, body=GOOD_CSV,
                            headers={"Content-Type": "text/csv; charset=utf-8"})
    if reply.header("Location") != upload:
        c.fail(f"PUT {upload}: Location is {reply.header('Location')!r}")
    if created and (created.get("source"), created.get("rowCount")) != ("uploaded", 1):
        c.fail(f"PUT {upload}: expected an uploaded file with one row: {created}")
    c.call(file_put, upload, 200, body=GOOD_CSV, headers=csv_type)
    _, listing = c.call(files_op, "/api/v1/scenario-files", 200)
    if "conformance-upload.csv" not in [e["name"] for e in (listing or {}).get("files", [])]:
        c.fail("GET /api/v1/scenario-files: the uploaded file is not listed")
    c.call(file_get, upload, 200)
    c.call(file_delete, "/api/v1/scenario-files/scenarios-ci.csv", 409)
    c.call(file_delete, upload, 204)
    c.call(file_delete, upload, 404)
    c.call(file_delete, "/api/v1/scenario-files/not-a-name", 404)

    # -- runs: refusals --
    runs_op = ("GET", "/api/v1/runs")
    create = ("POST", "/api/v1/runs")
    run_get = ("GET", "/api/v1/runs/{id}")
    run_delete = ("DELETE", "/api/v1/runs/{id}")
    run_stop = ("POST", "/api/v1/runs/{id}/stop")
    events_op = ("GET", "/api/v1/runs/{id}/events")
    json_type = {"Content-Type": "application/json"}
    _, page = c.call(runs_op, "/api/v1/runs", 200)
    if page and page.get("total") != 0:
        c.fail(f"GET /api/v1/runs: a fresh daemon has runs: {page}")
    for query, field in (("status=bogus", "status"), ("limit=0", "limit"),
                         ("limit=1001", "limit"), ("offset=-1", "offset")):
        _, problem = c.call(runs_op, "/api/v1/runs?" + query, 400)
        if problem and problem.get("field") != field:
            c.fail(f"GET /api/v1/runs?{query}: field is {problem.get('field')!r}, not {field}")
    c.call(create, "/api/v1/runs", 415, body=json.dumps(RUN_BODY),
           headers={"Content-Type": "text/plain"})
    c.call(create, "/api/v1/runs", 415, body=json.dumps(RUN_BODY))
    for body, field in (("{oops", "body"), ("[]", "body"), ("{}", "scenarioFile"),
                        ('{"scenarioFile":"scenarios-ci.csv","bogus":1}', "bogus"),
                        ('{"scenarioFile":"scenarios-ci.csv","testSeconds":0}', "testSeconds"),
                        ('{"scenarioFile":"scenarios-ci.csv","warmupSeconds":-1}',
                         "warmupSeconds"),
                        ('{"scenarioFile":"scenarios-ci.csv","keepCsv":"yes"}', "keepCsv"),
                        ('{"scenarioFile":"scenarios-ci.csv","approaches":["nope"]}',
                         "approaches"),
                        ('{"scenarioFile":"../../etc/passwd"}', "scenarioFile"),
                        ('{"scenarioFile":"no-such-file.csv"}', "scenarioFile")):
        _, problem = c.call(create, "/api/v1/runs", 400, body=body, headers=json_type)
        if problem and problem.get("field") != field:
            c.fail(f"POST /api/v1/runs {body}: field is {problem.get('field')!r}, not {field}")
    c.call(create, "/api/v1/runs", 413, headers=json_type,
           body=json.dumps(dict(RUN_BODY, padding="x" * MAX_BODY_BYTES)))
    for (method, template) in sorted(ops):
        if "{id}" in template:
            _, problem = c.call((method, template), sample_target(template), 404)
            if problem and problem.get("field") != "id":
                c.fail(f"{method} {sample_target(template)}: field is {problem.get('field')!r}")
    c.call(run_get, "/api/v1/runs/abc", 404)
    c.call(run_get, "/api/v1/runs/0", 404)
    c.call(("GET", "/api/v1/compare"), "/api/v1/compare?base=999999&other=999999", 404)

    # -- a real run, a queued one and a refused one --
    reply, run = c.call(create, "/api/v1/runs", 202, body=json.dumps(RUN_BODY), headers=json_type)
    if not run or "id" not in run:
        raise RuntimeError("the run was not created; cannot go on")
    run_id = run["id"]
    run_url = f"/api/v1/runs/{run_id}"
    if reply.header("Location") != run_url:
        c.fail(f"POST /api/v1/runs: Location is {reply.header('Location')!r}, not {run_url}")

    def state_of(url):
        return c.call(run_get, url, 200)[1] or {}

    state = poll(lambda: state_of(run_url).get("status") != "queued" and state_of(run_url), 60)
    if not state or state.get("status") != "running":
        raise RuntimeError(f"run {run_id} did not start running: {state}")

    reply, queued = c.call(create, "/api/v1/runs", 202, body=json.dumps(RUN_BODY),
                           headers=json_type)
    queued_id = (queued or {}).get("id")
    if not queued or queued.get("status") != "queued" or queued.get("queuePosition") != 1:
        c.fail(f"POST /api/v1/runs (second): expected queued at position 1: {queued}")
    reply, _ = c.call(create, "/api/v1/runs", 503, body=json.dumps(RUN_BODY), headers=json_type)
    _, page = c.call(runs_op, "/api/v1/runs?status=queued", 200)
    if page and [r["id"] for r in page.get("runs", [])] != [queued_id]:
        c.fail(f"GET /api/v1/runs?status=queued: expected run {queued_id}: {page}")
    c.call(run_get, f"/api/v1/runs/{queued_id}", 200)
    c.call(run_delete, run_url, 409)
    c.call(run_delete, f"/api/v1/runs/{queued_id}", 409)
    _, stopped = c.call(run_stop, f"/api/v1/runs/{queued_id}/stop", 200)
    if stopped != {"status": "stopped"}:
        c.fail(f"POST .../{queued_id}/stop: {stopped}")

    # Its live events, while the main thread reads the rest.
    live = {"events": [], "error": None, "reply": None}
    opened = threading.Event()

    def follow():
        try:
            connection, response = d.open_stream(run_url + "/events", timeout=120)
            live["reply"] = Reply("GET", run_url + "/events", response.status,
                                  response.getheaders(), b"")
            if response.status == 200:
                live["events"], _ = read_events(response, on_open=opened.set)
            else:
                live["reply"].body = response.read()
            connection.close()
        except Exception as error:  # reported by the main thread
            live["error"] = repr(error)
        finally:
            opened.set()

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    opened.wait(30)
    if follower.is_alive():  # max_streams = 1 and one is open
        reply = d.request("GET", run_url + "/events")
        c.check(events_op, reply, 503)
        if reply.header("Retry-After") is None:
            c.fail(f"GET {run_url}/events (stream limit): no Retry-After")
    else:
        log(f"note: run {run_id} ended before the stream-limit check")

    seen_progress = False
    seen_live = set()
    deadline = time.monotonic() + 120
    while follower.is_alive() and time.monotonic() < deadline:
        reply, _ = c.call(("GET", "/metrics"), "/metrics", 200)
        seen_live |= c.check_metrics(reply)
        _, state = c.call(run_get, run_url, 200)
        seen_progress = seen_progress or bool(state and "progress" in state)
        c.call(("GET", "/api/v1/runs/{id}/results"), run_url + "/results", 200)
        c.call(("GET", "/api/v1/runs/{id}/winners"), run_url + "/winners", 200)
        c.call(("GET", "/api/v1/runs/{id}/results.md"), run_url + "/results.md", {200, 404})
        time.sleep(0.25)
    follower.join(5)
    if follower.is_alive():
        c.fail(f"GET {run_url}/events: the live stream did not end within 120 s")
    if live["error"]:
        c.fail(f"GET {run_url}/events (live): {live['error']}")
    if live["reply"] is not None:
        c.check(events_op, live["reply"], 200, stream=live["reply"].status == 200)
        c.check_events(f"GET {run_url}/events (live)", live["events"], from_start=False)
        if live["events"] and json.loads(live["events"][-1]["data"]).get("status") != "completed":
            c.fail(f"GET {run_url}/events (live): the run did not complete: "
                   f"{live['events'][-1]['data']}")
    if not seen_progress:
        c.fail(f"GET {run_url}: never saw `progress` while the run was running")
    for family in ("benchd_run_info", "benchd_live_requests_per_second"):
        if family not in seen_live:
            c.fail(f"GET /metrics: never saw {family} while the run was running")
    state = poll(lambda: state_of(run_url).get("status") != "running" and state_of(run_url), 30)
    if not state or state.get("status") != "completed":
        raise RuntimeError(f"run {run_id} did not complete: {state}\n{d.stderr_text()}")

    # A run stopped while it runs (202).
    _, other = c.call(create, "/api/v1/runs", 202, body=json.dumps(RUN_BODY), headers=json_type)
    other_id = (other or {}).get("id")
    other_url = f"/api/v1/runs/{other_id}"
    if not poll(lambda: state_of(other_url).get("status") == "running", 60, 0.05):
        c.fail(f"run {other_id} did not start running")
    _, stopping = c.call(run_stop, other_url + "/stop", 202)
    if stopping != {"status": "stopping"}:
        c.fail(f"POST {other_url}/stop: {stopping}")
    if not poll(lambda: state_of(other_url).get("status") == "stopped", 60):
        c.fail(f"run {other_id} was not stopped within 60 s")

    # -- the finished run's documents --
    c.call(run_stop, run_url + "/stop", 409)
    _, results = c.call(("GET", "/api/v1/runs/{id}/results"), run_url + "/results", 200)
    rows = (results or {}).get("rows", [])
    if len(rows) != 4 or len((results or {}).get("scenarios", [])) != 4:
        c.fail(f"GET {run_url}/results: expected 4 scenarios and 4 rows: {shorten(results)}")
    seconds_op = ("GET", "/api/v1/runs/{id}/results/{scenario}/{approach}/seconds")
    if rows:
        series_url = (f"{run_url}/results/{quote(rows[0]['scenario'])}/"
                      f"{quote(rows[0]['approach'])}/seconds")
        _, series = c.call(seconds_op, series_url, 200)
        if series and not series.get("seconds"):
            c.fail(f"GET {series_url}: no seconds in the test phase")
        c.call(seconds_op, series_url + "?phase=test", 200)
        c.call(seconds_op, series_url + "?phase=warmup", 200)
        _, problem = c.call(seconds_op, series_url + "?phase=bogus", 400)
        if problem and problem.get("field") != "phase":
            c.fail(f"GET {series_url}?phase=bogus: {problem}")
    c.call(seconds_op, f"{run_url}/results/no-such-scenario/callbacks-asio/seconds", 404)
    # A fixed-load row has no capacity trials (tests/control covers a capacity row's).
    trials_op = ("GET", "/api/v1/runs/{id}/results/{scenario}/{approach}/trials")
    if rows:
        trials_url = (f"{run_url}/results/{quote(rows[0]['scenario'])}/"
                      f"{quote(rows[0]['approach'])}/trials")
        _, trials = c.call(trials_op, trials_url, 200)
        if trials is not None and trials.get("trials") != []:
            c.fail(f"GET {trials_url}: a fixed-load row with trials: {shorten(trials)}")
        _, problem = c.call(trials_op, trials_url + "?round=0", 400)
        if problem and problem.get("field") != "round":
            c.fail(f"GET {trials_url}?round=0: {problem}")
    c.call(trials_op, f"{run_url}/results/no-such-scenario/callbacks-asio/trials", 404)
    reply, _ = c.call(("GET", "/api/v1/runs/{id}/results.csv"), run_url + "/results.csv", 200)
    if len(reply.body.decode().strip().split("\n")) != 5:
        c.fail(f"GET {run_url}/results.csv: expected a header and 4 rows")
    c.call(("GET", "/api/v1/runs/{id}/results.md"), run_url + "/results.md", 200)
    _, charts = c.call(("GET", "/api/v1/runs/{id}/charts"), run_url + "/charts", 200)
    for chart in (charts or {}).get("charts", []):
        operation = ("GET", "/api/v1/runs/{id}/charts/{folder}/{file}" if "/" in chart["name"]
                     else "/api/v1/runs/{id}/charts/{file}")
        c.call(operation, chart["url"], 200)
    c.call(("GET", "/api/v1/runs/{id}/charts/{file}"), run_url + "/charts/no-such-chart.png", 404)
    c.call(("GET", "/api/v1/runs/{id}/charts/{file}"), run_url + "/charts/results.md", 404)
    c.call(("GET", "/api/v1/runs/{id}/charts/{folder}/{file}"),
           run_url + "/charts/no-such-folder/chart.png", 404)
    _, winners = c.call(("GET", "/api/v1/runs/{id}/winners"), run_url + "/winners", 200)
    if winners and len(winners.get("scenarios", [])) != 4:
        c.fail(f"GET {run_url}/winners: expected 4 scenarios")
    compare = ("GET", "/api/v1/compare")
    _, comparison = c.call(compare, f"/api/v1/compare?base={run_id}&other={run_id}", 200)
    if comparison and any(change["change"] != "neutral" for group in comparison["groups"]
                          for change in group["changes"]):
        c.fail("GET /api/v1/compare (a run with itself): a change that is not neutral")
    c.call(compare, f"/api/v1/compare?base={run_id}&other={other_id}&threshold=5", 200)
    for query, status, field in ((f"other={run_id}", 400, "base"), (f"base={run_id}", 400, "other"),
                                 (f"base={run_id}&other={run_id}&threshold=abc", 400, "threshold"),
                                 (f"base={run_id}&other={run_id}&threshold=1001", 400,
                                  "threshold"),
                                 (f"base={run_id}&other=999999", 404, "other"),
                                 (f"base=abc&other={run_id}", 400, "base")):
        _, problem = c.call(compare, "/api/v1/compare?" + query, status)
        if problem and problem.get("field") != field:
            c.fail(f"GET /api/v1/compare?{query}: field is {problem.get('field')!r}, not {field}")

    # -- the finished run's events: replayed from the store, and the short answer --
    def stream(last_event_id, url=run_url):
        for _ in range(50):  # the live stream's slot may take a moment to be released
            connection, response = d.open_stream(url + "/events", last_event_id)
            if response.status != 503:
                break
            response.read()
            connection.close()
            time.sleep(0.1)
        reply = Reply("GET", f"{url}/events (Last-Event-ID: {last_event_id})",
                      response.status, response.getheaders(), b"")
        events = []
        if response.status == 200:
            events, _ = read_events(response)
        else:
            reply.body = response.read()
        connection.close()
        c.check(events_op, reply, 200, stream=response.status == 200)
        return events

    replayed = stream("0")
    c.check_events(f"GET {run_url}/events (Last-Event-ID: 0)", replayed, from_start=True)
    kinds = {event["event"] for event in replayed}
    if kinds != {"phase", "snapshot", "row", "end"}:
        c.fail(f"GET {run_url}/events (Last-Event-ID: 0): event types {sorted(kinds)}")
    if replayed and replayed[0]["retry"] != "100":
        c.fail(f"GET {run_url}/events (Last-Event-ID: 0): the first event has retry "
               f"{replayed[0]['retry']!r}")
    if live["events"] and replayed:
        live_ids = [e["id"] for e in live["events"]]
        replayed_by_id = {e["id"]: e for e in replayed}
        if any(replayed_by_id.get(i, {}).get("data") != e["data"]
               for i, e in zip(live_ids, live["events"]) if i is not None):
            c.fail(f"GET {run_url}/events: a replayed event differs from the live one")
    if len(replayed) > 3:
        tail = stream(replayed[-3]["id"])
        if [e["id"] for e in tail] != [e["id"] for e in replayed[-2:]]:
            c.fail(f"GET {run_url}/events (Last-Event-ID: {replayed[-3]['id']}): got ids "
                   f"{[e['id'] for e in tail]}")
    short = stream(None)
    c.check_events(f"GET {run_url}/events (no Last-Event-ID)", short, from_start=False)
    if [(e["event"], e["id"]) for e in short] != [("end", None)]:
        c.fail(f"GET {run_url}/events (finished, no Last-Event-ID): expected one end event "
               f"without id, got {short}")
    _, problem = c.call(events_op, run_url + "/events", 400, headers={"Last-Event-ID": "abc"})
    if problem and problem.get("field") != "Last-Event-ID":
        c.fail(f"GET {run_url}/events (Last-Event-ID: abc): {problem}")
    reply = d.raw_http10(run_url + "/events")
    c.check(events_op, reply, 400)

    # -- the list, then deletes --
    _, page = c.call(runs_op, "/api/v1/runs?status=completed&limit=1&offset=0", 200)
    if page and (page.get("total"), len(page.get("runs", []))) != (1, 1):
        c.fail(f"GET /api/v1/runs?status=completed&limit=1: {shorten(page)}")
    _, page = c.call(runs_op, "/api/v1/runs", 200)
    if page and [r["id"] for r in page.get("runs", [])] != [other_id, queued_id, run_id]:
        c.fail(f"GET /api/v1/runs: expected runs {other_id}, {queued_id}, {run_id} (newest first)")
    c.call(runs_op, "/api/v1/runs?offset=3", 200)
    folder = os.path.join(d.state_dir, "results", f"run-{run_id}")
    if not os.path.isdir(folder):
        c.fail(f"run {run_id}: no folder {folder}")
    c.call(run_delete, run_url, 204)
    if os.path.exists(folder):
        c.fail(f"DELETE {run_url}: {folder} is still there")
    c.call(run_get, run_url, 404)
    c.call(run_delete, run_url, 404)
    c.call(("GET", "/api/v1/runs/{id}/results"), run_url + "/results", 404)
    c.call(run_delete, f"/api/v1/runs/{queued_id}", 204)
    c.call(run_delete, other_url, 204)
    reply, _ = c.call(("GET", "/metrics"), "/metrics", 200)
    c.check_metrics(reply)

    # -- a capacity row: its search in the results, the trials route and the trial events,
    #    each against its schema --
    capacity_upload = "/api/v1/scenario-files/conformance-capacity.csv"
    c.call(file_put, capacity_upload, 201, body=CAPACITY_CSV, headers=csv_type)
    _, created = c.call(create, "/api/v1/runs", 202, body=json.dumps(CAPACITY_RUN_BODY),
                        headers=json_type)
    capacity_url = f"/api/v1/runs/{(created or {}).get('id')}"
    state = poll(lambda: state_of(capacity_url).get("status") not in ("queued", "running")
                 and state_of(capacity_url), 180)
    if not state or state.get("status") != "completed":
        c.fail(f"{capacity_url}: the capacity run did not complete: {state}")
    else:
        _, results = c.call(("GET", "/api/v1/runs/{id}/results"), capacity_url + "/results", 200)
        capacity_rows = (results or {}).get("rows", [])
        if len(capacity_rows) != 1 or not capacity_rows[0].get("capacity"):
            c.fail(f"GET {capacity_url}/results: no capacity search: {shorten(results)}")
        approach = quote(CAPACITY_RUN_BODY["approaches"][0])
        trials_url = f"{capacity_url}/results/conformance-capacity/{approach}/trials"
        _, trials = c.call(trials_op, trials_url, 200)
        if not trials or len(trials.get("trials", [])) < 2:
            c.fail(f"GET {trials_url}: expected the search's trials: {shorten(trials)}")
        replayed = stream("0", capacity_url)
        c.check_events(f"GET {capacity_url}/events (Last-Event-ID: 0)", replayed, from_start=True)
        if "trial" not in {event["event"] for event in replayed}:
            c.fail(f"GET {capacity_url}/events (Last-Event-ID: 0): no trial event")
    c.call(run_delete, capacity_url, 204)
    c.call(file_delete, capacity_upload, 204)


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    binary, spec_path, source_dir = argv[1:]
    project_dir = os.path.normpath(os.path.join(source_dir.split(":")[0], "..", "..", ".."))
    started = time.monotonic()
    spec = Spec(spec_path)
    folder = tempfile.mkdtemp(prefix="benchd-openapi-")
    daemon = None
    conformance = Conformance(spec, None)
    exit_code = None
    try:
        static_checks(conformance, source_dir)
        daemon = Daemon(binary, folder)
        conformance.daemon = daemon
        log(f"daemon: listening on port {daemon.port} (state in {daemon.state_dir})")
        try:
            exercise(conformance, project_dir)
        except Exception as error:  # a step others depend on failed; report what we have
            where = " / ".join(line.strip()
                               for line in traceback.format_exc().strip().split("\n")[-3:])
            conformance.fail(f"the scenario stopped: {error!r} ({where})")
        exit_code = daemon.stop()
        if exit_code != 0:
            conformance.fail(f"benchd serve exited with {exit_code} after SIGTERM (expected 0)")
    finally:
        if daemon is not None and daemon.process.poll() is None:
            daemon.process.kill()
            daemon.process.wait()

    for operation in sorted(spec.operations):
        statuses = conformance.exercised.get(operation)
        if not statuses:
            conformance.fail(f"{operation[0]} {operation[1]} was never called")
    log("\ncoverage (operation: statuses seen / declared):")
    for operation in sorted(spec.operations, key=lambda op: (op[1], op[0])):
        seen = sorted(conformance.exercised.get(operation, {}))
        declared = sorted(spec.operations[operation]["responses"])
        log(f"  {operation[0]:6} {operation[1]}: {', '.join(map(str, seen))} / "
            f"{', '.join(declared)}")
    for name, statuses in sorted(conformance.shared_seen.items()):
        log(f"  (shared) {name}: {', '.join(map(str, sorted(statuses)))}")

    elapsed = time.monotonic() - started
    if conformance.failures:
        log(f"\n{len(conformance.failures)} failures in {elapsed:.1f} s:")
        for failure in conformance.failures:
            repeats = conformance.repeats.get(failure)
            log("  " + failure + (f" (x{repeats})" if repeats else ""))
        if daemon is not None:
            log("\nbenchd serve stderr (tail):\n" + daemon.stderr_text())
        log(f"(state kept in {folder})")
        return 1
    shutil.rmtree(folder, ignore_errors=True)
    log(f"\nopenapi conformance: {len(spec.operations)} operations, every answer conforms "
        f"({elapsed:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
