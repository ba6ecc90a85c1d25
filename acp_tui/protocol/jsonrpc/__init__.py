"""JSON-RPC 2.0 over newline-delimited JSON, symmetric for clients and agents.

ACP frames one JSON-RPC message per line on the agent's stdin/stdout
(https://agentclientprotocol.com/protocol/transports). Both sides may send requests, so one
:class:`Connection` (:mod:`~acp_tui.protocol.jsonrpc.connection`) serves the client and the
built-in demo agent alike; its vocabulary (codes, errors, parsing, traffic records) is in
:mod:`~acp_tui.protocol.jsonrpc.messages`. Import from here.
"""

from acp_tui.protocol.jsonrpc.connection import (
    DEFAULT_MAX_LINE_BYTES,
    FIRST_SKIPPED_KEPT,
    READ_CHUNK,
    READ_SLICE_SECONDS,
    SKIPPED_TEXT_LIMIT,
    TRAFFIC_TEXT_LIMIT,
    Connection,
    after_response,
)
from acp_tui.protocol.jsonrpc.messages import (
    AUTH_REQUIRED,
    CANCEL_REQUEST_METHOD,
    CLOSED_INPUT,
    CLOSED_LOCALLY,
    CLOSED_OUTPUT,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    JSONRPC_VERSION,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_CANCELLED,
    RESOURCE_NOT_FOUND,
    ConnectionClosed,
    ConnectionStats,
    Direction,
    EchoedRequest,
    FollowUp,
    NotificationHandler,
    RequestHandler,
    RequestId,
    RpcError,
    TrafficRecord,
    WireTap,
    parse_line,
    parse_line_lenient,
)

__all__ = [
    "AUTH_REQUIRED",
    "CANCEL_REQUEST_METHOD",
    "CLOSED_INPUT",
    "CLOSED_LOCALLY",
    "CLOSED_OUTPUT",
    "DEFAULT_MAX_LINE_BYTES",
    "FIRST_SKIPPED_KEPT",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "JSONRPC_VERSION",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "READ_CHUNK",
    "READ_SLICE_SECONDS",
    "REQUEST_CANCELLED",
    "RESOURCE_NOT_FOUND",
    "SKIPPED_TEXT_LIMIT",
    "TRAFFIC_TEXT_LIMIT",
    "Connection",
    "ConnectionClosed",
    "ConnectionStats",
    "Direction",
    "EchoedRequest",
    "FollowUp",
    "NotificationHandler",
    "RequestHandler",
    "RequestId",
    "RpcError",
    "TrafficRecord",
    "WireTap",
    "after_response",
    "parse_line",
    "parse_line_lenient",
]
