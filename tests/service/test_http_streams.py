"""An HTTP/2 connection to the HTTP door carries any number of calls: before the stream count at
which zttp takes the connection for a flood and drops it, the door answers with a GOAWAY, and
the client goes on over a new connection without a call failing."""

from __future__ import annotations

import grpc

from ordo.v1 import engine_service_pb2 as api
from service.doors.http_guard import STREAMS_PER_CONNECTION

FLOOD_STREAMS = 4_096  # the streams zttp lets one connection open before it drops it
CALLS = FLOOD_STREAMS + 200
IN_FLIGHT = 8


class TestManyStreams:
    """More calls on one client than zttp lets a connection carry."""

    def test_every_call_is_answered(self, http_address: str) -> None:
        """4,296 calls from one gRPC channel to the HTTP door (gRPC over HTTP/2), eight in
        flight at a time: all answered; the door asked for a new connection before zttp's
        bound, and the calls in flight then were answered on the old one."""
        assert STREAMS_PER_CONNECTION < FLOOD_STREAMS
        with grpc.insecure_channel(http_address) as channel:
            call = channel.unary_unary(
                "/ordo.v1.GameEngineService/ListGames",
                request_serializer=api.ListGamesRequest.SerializeToString,
                response_deserializer=api.ListGamesResponse.FromString,
            )
            in_flight: list[grpc.Future] = []
            for _ in range(CALLS):
                in_flight.append(call.future(api.ListGamesRequest(), timeout=30))
                if len(in_flight) == IN_FLIGHT:
                    in_flight.pop(0).result()
            for future in in_flight:
                future.result()
