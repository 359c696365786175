"""What the generator needs to call a real halma_server: the server process
on 127.0.0.1, the halma.v1 messages built from the .proto at run time
(protoc's descriptor set, protobuf's message factory: no generated code is
kept), and unary calls over gRPC with their answers in the proto3 JSON
mapping, default values included.
"""

import os
import re
import subprocess
import tempfile
import threading
import time

import grpc
from google.protobuf import descriptor_pb2, json_format, message_factory

SERVICE = "halma.v1.HalmaRules"
LISTEN = re.compile(r"listening on [^ ]*:(\d+) ")
HTTP = re.compile(r"; http [^ ]*:(\d+) \(Connect protocol\)")
START_TIMEOUT_S = 30


class Server:
    """halma_server on free loopback ports, with its default limits (no
    HALMA_* variable of the caller's environment reaches it) and `extra`
    flags. tests/client/conformance_test.py starts its servers with it."""

    def __init__(self, binary, *extra):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("HALMA_")}
        self.proc = subprocess.Popen(
            [binary, "--host=127.0.0.1", "--port=0", "--http_port=0",
             "--playground=false", "--grace_period_seconds=2", *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True, env=env)
        self.port = self.http_port = self.drain = None
        lines = []
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            grpc_port, http_port = LISTEN.search(line), HTTP.search(line)
            if grpc_port and http_port:
                self.port = int(grpc_port.group(1))
                self.http_port = int(http_port.group(1))
                break
        if self.port is None:
            self.stop()
            raise RuntimeError("halma_server did not start:\n" +
                               "".join(lines[-20:]))
        # Keep reading its log so that it never blocks on a full pipe.
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()

    def _drain(self):
        for _ in self.proc.stderr:
            pass

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        if self.drain is not None:
            self.drain.join(timeout=10)
        self.proc.stderr.close()


def load_messages(protoc, proto_root):
    """{full name: message class} of halma/v1/halma.proto, compiled with
    protoc into a descriptor set."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "halma.pb")
        subprocess.run(
            [protoc, "-I", proto_root, "--include_imports",
             "--descriptor_set_out=" + out, "halma/v1/halma.proto"],
            check=True)
        with open(out, "rb") as f:
            files = descriptor_pb2.FileDescriptorSet.FromString(f.read())
    return message_factory.GetMessages(list(files.file))


class Api:
    """Unary calls of halma.v1.HalmaRules: a request in proto3 JSON in, the
    answer as proto3 JSON (every field, defaults included) or the error out.
    """

    def __init__(self, messages, port, deadline_s=30):
        self.messages = messages
        self.channel = grpc.insecure_channel(
            "127.0.0.1:%d" % port,
            options=[("grpc.max_send_message_length", -1),
                     ("grpc.max_receive_message_length", 64 << 20)])
        grpc.channel_ready_future(self.channel).result(timeout=30)
        self.deadline_s = deadline_s
        self.calls = 0

    def close(self):
        self.channel.close()

    def message(self, name):
        return self.messages["halma.v1." + name]

    def canonical_request(self, method, request):
        """The request in canonical proto3 JSON: camelCase, fields at
        their default values left out (a set oneof member is kept)."""
        message = json_format.ParseDict(request,
                                        self.message(method + "Request")())
        return json_format.MessageToDict(message)

    def call(self, method, request):
        """("ok", answer) or ("error", code name, message)."""
        request_class = self.message(method + "Request")
        response_class = self.message(method + "Response")
        message = json_format.ParseDict(request, request_class())
        stub = self.channel.unary_unary(
            "/%s/%s" % (SERVICE, method),
            request_serializer=request_class.SerializeToString,
            response_deserializer=response_class.FromString)
        self.calls += 1
        try:
            answer = stub(message, timeout=self.deadline_s)
        except grpc.RpcError as error:
            return ("error", error.code().name, error.details() or "")
        return ("ok", json_format.MessageToDict(
            answer, including_default_value_fields=True))
