#!/usr/bin/python3
"""A grpcurl-like gRPC client that knows no service in advance.

It discovers services through the standard server reflection service
(grpc.reflection.v1alpha.ServerReflection), builds message classes from the
file descriptors the server sends, and calls unary methods with JSON requests
and JSON answers. It uses an implementation of gRPC independent of the
server's (Python grpcio) and none of the project's .proto files: the only
schema it carries is the standard reflection protocol, written below as a
FileDescriptorProto (the content of grpc/reflection/v1alpha/reflection.proto).

Needs Debian's /usr/bin/python3 with python3-grpcio and python3-protobuf.

Usage as a tool:
  reflection_client.py [--target=HOST:PORT] list
  reflection_client.py [--target=HOST:PORT] describe SERVICE
  reflection_client.py [--target=HOST:PORT] call SERVICE/METHOD [JSON]
"""

import json
import sys

import grpc
from google.protobuf import descriptor_pb2
from google.protobuf import descriptor_pool
from google.protobuf import json_format
from google.protobuf import message_factory

REFLECTION_SERVICE = "grpc.reflection.v1alpha.ServerReflection"
REFLECTION_METHOD = "/" + REFLECTION_SERVICE + "/ServerReflectionInfo"

_F = descriptor_pb2.FieldDescriptorProto


def _reflection_file_descriptor():
    """grpc/reflection/v1alpha/reflection.proto as a FileDescriptorProto."""
    file = descriptor_pb2.FileDescriptorProto(
        name="grpc/reflection/v1alpha/reflection.proto",
        package="grpc.reflection.v1alpha",
        syntax="proto3",
    )
    pkg = "." + file.package + "."

    def message(name, fields, oneofs=()):
        msg = file.message_type.add(name=name)
        for oneof in oneofs:
            msg.oneof_decl.add(name=oneof)
        for fname, number, ftype, extra in fields:
            field = msg.field.add(
                name=fname, number=number, type=ftype,
                label=extra.get("label", _F.LABEL_OPTIONAL))
            if "message" in extra:
                field.type_name = pkg + extra["message"]
            if "oneof" in extra:
                field.oneof_index = extra["oneof"]

    repeated = {"label": _F.LABEL_REPEATED}
    message("ServerReflectionRequest", [
        ("host", 1, _F.TYPE_STRING, {}),
        ("file_by_filename", 3, _F.TYPE_STRING, {"oneof": 0}),
        ("file_containing_symbol", 4, _F.TYPE_STRING, {"oneof": 0}),
        ("file_containing_extension", 5, _F.TYPE_MESSAGE,
         {"oneof": 0, "message": "ExtensionRequest"}),
        ("all_extension_numbers_of_type", 6, _F.TYPE_STRING, {"oneof": 0}),
        ("list_services", 7, _F.TYPE_STRING, {"oneof": 0}),
    ], oneofs=["message_request"])
    message("ExtensionRequest", [
        ("containing_type", 1, _F.TYPE_STRING, {}),
        ("extension_number", 2, _F.TYPE_INT32, {}),
    ])
    message("ServerReflectionResponse", [
        ("valid_host", 1, _F.TYPE_STRING, {}),
        ("original_request", 2, _F.TYPE_MESSAGE,
         {"message": "ServerReflectionRequest"}),
        ("file_descriptor_response", 4, _F.TYPE_MESSAGE,
         {"oneof": 0, "message": "FileDescriptorResponse"}),
        ("all_extension_numbers_response", 5, _F.TYPE_MESSAGE,
         {"oneof": 0, "message": "ExtensionNumberResponse"}),
        ("list_services_response", 6, _F.TYPE_MESSAGE,
         {"oneof": 0, "message": "ListServiceResponse"}),
        ("error_response", 7, _F.TYPE_MESSAGE,
         {"oneof": 0, "message": "ErrorResponse"}),
    ], oneofs=["message_response"])
    message("FileDescriptorResponse", [
        ("file_descriptor_proto", 1, _F.TYPE_BYTES, repeated),
    ])
    message("ExtensionNumberResponse", [
        ("base_type_name", 1, _F.TYPE_STRING, {}),
        ("extension_number", 2, _F.TYPE_INT32, repeated),
    ])
    message("ListServiceResponse", [
        ("service", 1, _F.TYPE_MESSAGE,
         dict(repeated, message="ServiceResponse")),
    ])
    message("ServiceResponse", [("name", 1, _F.TYPE_STRING, {})])
    message("ErrorResponse", [
        ("error_code", 1, _F.TYPE_INT32, {}),
        ("error_message", 2, _F.TYPE_STRING, {}),
    ])
    service = file.service.add(name="ServerReflection")
    service.method.add(
        name="ServerReflectionInfo",
        input_type=pkg + "ServerReflectionRequest",
        output_type=pkg + "ServerReflectionResponse",
        client_streaming=True, server_streaming=True)
    return file


def _reflection_classes():
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_reflection_file_descriptor())
    factory = message_factory.MessageFactory(pool)
    get = lambda name: factory.GetPrototype(
        pool.FindMessageTypeByName("grpc.reflection.v1alpha." + name))
    return get("ServerReflectionRequest"), get("ServerReflectionResponse")


_Request, _Response = _reflection_classes()


class DiscoveryError(Exception):
    """Discovery through reflection failed; `code` is a grpc.StatusCode."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class ReflectionClient:
    """Asks a server's reflection service for services and descriptors."""

    def __init__(self, channel, timeout=10.0):
        self._info = channel.stream_stream(
            REFLECTION_METHOD,
            request_serializer=_Request.SerializeToString,
            response_deserializer=_Response.FromString)
        self._timeout = timeout

    def _ask(self, **request_fields):
        request = _Request(**request_fields)
        try:
            responses = list(self._info(iter([request]),
                                        timeout=self._timeout))
        except grpc.RpcError as error:
            raise DiscoveryError(
                "reflection call failed: %s: %s"
                % (error.code().name, error.details()), error.code()) from None
        if len(responses) != 1:
            raise DiscoveryError("expected one reflection response, got %d"
                                 % len(responses))
        response = responses[0]
        if response.HasField("error_response"):
            err = response.error_response
            raise DiscoveryError(
                "reflection error %d: %s" % (err.error_code,
                                             err.error_message),
                grpc.StatusCode.NOT_FOUND if err.error_code == 5 else None)
        return response

    def list_services(self):
        response = self._ask(list_services="*")
        return sorted(s.name for s in response.list_services_response.service)

    def _files(self, response):
        files = []
        for data in response.file_descriptor_response.file_descriptor_proto:
            files.append(descriptor_pb2.FileDescriptorProto.FromString(data))
        return files

    def file_containing_symbol(self, symbol):
        return self._files(self._ask(file_containing_symbol=symbol))

    def file_by_filename(self, filename):
        return self._files(self._ask(file_by_filename=filename))


class Schema:
    """The services a server described, with dynamically built messages."""

    def __init__(self, files):
        self.files = dict(files)  # name -> FileDescriptorProto
        self.pool = descriptor_pool.DescriptorPool()
        added = set()

        def add(name):  # Dependencies first.
            if name in added:
                return
            added.add(name)
            for dep in self.files[name].dependency:
                add(dep)
            self.pool.Add(self.files[name])

        for name in sorted(self.files):
            add(name)
        self._factory = message_factory.MessageFactory(self.pool)

    def service(self, name):
        return self.pool.FindServiceByName(name)

    def message_class(self, descriptor):
        return self._factory.GetPrototype(descriptor)

    def method(self, full_method):
        """"pkg.Service/Method" -> its MethodDescriptor."""
        service_name, _, method_name = full_method.partition("/")
        service = self.service(service_name)
        method = service.methods_by_name.get(method_name)
        if method is None:
            raise KeyError("no method %r in %s" % (method_name, service_name))
        return method


def discover(channel, services, timeout=10.0):
    """Fetches the descriptors of `services` and of every file they need.

    Raises DiscoveryError when reflection is off, a service is not listed or
    a file cannot be fetched.
    """
    client = ReflectionClient(channel, timeout)
    listed = client.list_services()
    files = {}
    pending = []
    for service in services:
        if service not in listed:
            raise DiscoveryError("service %s is not listed (listed: %s)"
                                 % (service, ", ".join(listed)))
        pending.extend(client.file_containing_symbol(service))
    while pending:
        file = pending.pop()
        if file.name in files:
            continue
        files[file.name] = file
        for dep in file.dependency:
            if dep not in files:
                pending.extend(client.file_by_filename(dep))
    return listed, Schema(files)


class DynamicStub:
    """Calls unary methods by name with JSON in and JSON-like dicts out."""

    def __init__(self, channel, schema, timeout=10.0):
        self._channel = channel
        self._schema = schema
        self._timeout = timeout

    def call(self, full_method, request_json="{}"):
        method = self._schema.method(full_method)
        if method.client_streaming or method.server_streaming:
            raise ValueError("%s is a streaming method" % full_method)
        request_class = self._schema.message_class(method.input_type)
        response_class = self._schema.message_class(method.output_type)
        request = json_format.Parse(request_json, request_class())
        callable_ = self._channel.unary_unary(
            "/%s/%s" % (method.containing_service.full_name, method.name),
            request_serializer=request_class.SerializeToString,
            response_deserializer=response_class.FromString)
        response = callable_(request, timeout=self._timeout)
        return json_format.MessageToDict(response)


def _describe(schema, service_name):
    service = schema.service(service_name)
    lines = ["service %s {" % service.full_name]
    for method in service.methods:
        lines.append("  rpc %s(%s%s) returns (%s%s);" % (
            method.name, "stream " if method.client_streaming else "",
            method.input_type.full_name,
            "stream " if method.server_streaming else "",
            method.output_type.full_name))
    lines.append("}")
    return "\n".join(lines)


def main(argv):
    target = "localhost:50051"
    args = []
    for arg in argv[1:]:
        if arg.startswith("--target="):
            target = arg[len("--target="):]
        else:
            args.append(arg)
    if not args or args[0] not in ("list", "describe", "call"):
        print(__doc__.strip().split("Usage as a tool:")[1], file=sys.stderr)
        return 2
    with grpc.insecure_channel(target) as channel:
        try:
            if args[0] == "list":
                for name in ReflectionClient(channel).list_services():
                    print(name)
                return 0
            if args[0] == "describe" and len(args) == 2:
                _, schema = discover(channel, [args[1]])
                print(_describe(schema, args[1]))
                return 0
            if args[0] == "call" and len(args) in (2, 3):
                service = args[1].partition("/")[0]
                _, schema = discover(channel, [service])
                answer = DynamicStub(channel, schema).call(
                    args[1], args[2] if len(args) == 3 else "{}")
                print(json.dumps(answer, indent=2))
                return 0
        except DiscoveryError as error:
            print("discovery failed: %s" % error, file=sys.stderr)
            return 1
        except grpc.RpcError as error:
            print("%s: %s" % (error.code().name, error.details()),
                  file=sys.stderr)
            return 1
    print("bad arguments; see --help", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
