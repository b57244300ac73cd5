"""The wire protocol between the arena referee and bot programs (JSON lines)."""

from protocol.messages import (
    MAX_LINE_BYTES,
    PROTOCOL_VERSION,
    Choice,
    GameOver,
    Hello,
    Limits,
    Ready,
    Request,
    bot_decoder,
    encode_line,
    referee_decoder,
)

__all__ = [
    "MAX_LINE_BYTES",
    "PROTOCOL_VERSION",
    "Choice",
    "GameOver",
    "Hello",
    "Limits",
    "Ready",
    "Request",
    "bot_decoder",
    "encode_line",
    "referee_decoder",
]
