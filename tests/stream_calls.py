"""Server streams of the HTTP door as browsers and curl read them: Connect's streaming protocol
(binary or JSON) and gRPC-Web over HTTP/1.1 with ``http.client``, each message as it arrives,
then the stream's end (its code and reason)."""

from __future__ import annotations

import base64
import http.client
import json
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import grpc
from google.protobuf import json_format, message_factory
from google.rpc import error_details_pb2, status_pb2

from ordo.v1 import engine_service_pb2 as api
from tests.connect_calls import SERVICE_PATH, connect_code, one_reason

SERVICE = api.DESCRIPTOR.services_by_name["GameEngineService"]
STREAM_PROTOCOLS = ("connect-proto", "connect-json", "grpc-web")
CONTENT_TYPES = {
    "connect-proto": "application/connect+proto",
    "connect-json": "application/connect+json",
    "grpc-web": "application/grpc-web+proto",
}
ENVELOPE = struct.Struct(">BI")  # a message's flags and length
END_STREAM = 0x02  # Connect: the frame that ends the stream, in JSON
TRAILERS = 0x80  # gRPC-Web: the frame of the trailers
TIMEOUT_SECONDS = 30


@dataclass(frozen=True)
class StreamEnd:
    """How a stream ended: its code, and the ErrorInfo reason of an error."""

    code: grpc.StatusCode
    reason: str = ""


def http_stream(
    address: str, protocol: str, method: str, request: bytes, headers: dict[str, str]
) -> Iterator[bytes | StreamEnd]:
    """The messages of one server stream (each as the protobuf bytes of the message, whatever
    the protocol carried), then its end; closing the iterator closes the connection."""
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT_SECONDS)
    json_form = protocol == "connect-json"
    descriptor = SERVICE.methods_by_name[method]
    answer_type = message_factory.GetMessageClass(descriptor.output_type)
    if json_form:
        request_type = message_factory.GetMessageClass(descriptor.input_type)
        body = json_format.MessageToJson(request_type.FromString(request)).encode()
    else:
        body = request
    try:
        connection.request(
            "POST",
            SERVICE_PATH + method,
            ENVELOPE.pack(0, len(body)) + body,
            {"Content-Type": CONTENT_TYPES[protocol], **headers},
        )
        response = connection.getresponse()
        if response.status != 200:  # Connect's error before the stream: a unary error body
            error = json.loads(response.read() or b"{}")
            yield StreamEnd(connect_code(error["code"]), one_reason(error.get("details", [])))
            return
        if protocol == "grpc-web" and response.getheader("grpc-status"):
            yield _grpc_web_end(dict(response.getheaders()))
            return
        while True:
            head = response.read(ENVELOPE.size)
            if len(head) < ENVELOPE.size:
                yield StreamEnd(grpc.StatusCode.UNAVAILABLE, "STREAM_CUT")
                return
            flags, size = ENVELOPE.unpack(head)
            data = response.read(size)
            if protocol == "grpc-web" and flags & TRAILERS:
                lines = data.decode().split("\r\n")
                trailers = dict(line.split(":", 1) for line in lines if ":" in line)
                yield _grpc_web_end(trailers)
                return
            if flags & END_STREAM:
                error = json.loads(data).get("error")
                if error is None:
                    yield StreamEnd(grpc.StatusCode.OK)
                else:
                    reason = one_reason(error.get("details", []))
                    yield StreamEnd(connect_code(error["code"]), reason)
                return
            if json_form:
                data = json_format.Parse(data, answer_type()).SerializeToString()
            yield data
    finally:
        connection.close()


def _grpc_web_end(trailers: Mapping[str, str]) -> StreamEnd:
    """The end of a gRPC-Web stream, from its trailers (or its trailers-only headers)."""
    found = {key.strip().lower(): value.strip() for key, value in trailers.items()}
    number = int(found.get("grpc-status", "2"))
    code = next(code for code in grpc.StatusCode if code.value[0] == number)
    raw = found.get("grpc-status-details-bin", "")
    status = status_pb2.Status.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4)))
    reason = ""
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            reason = info.reason
    return StreamEnd(code, reason)
