"""The LLM layer: model factory, scripted test model, XML protocol and JSON output parsing."""

from .factory import OFFLINE, PROVIDERS, load_chat_model, override_allow_model_requests
from .json_output import extract_json, invoke_json
from .scripted import GARBAGE, ScriptedChatModel, ScriptExhaustedError, scripted
from .xml_protocol import (
    ParseOutcome,
    ReactStep,
    ToolCall,
    XmlProtocolError,
    escape_xml,
    parse_react_xml,
    parse_with_repair,
    partial_parse,
    render_observation,
    render_response,
    wrap_cdata,
)
from .xml_stream import SectionDelta, StreamingXmlSectionsExtractor

__all__ = [
    "GARBAGE",
    "OFFLINE",
    "PROVIDERS",
    "ParseOutcome",
    "ReactStep",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "SectionDelta",
    "StreamingXmlSectionsExtractor",
    "ToolCall",
    "XmlProtocolError",
    "escape_xml",
    "extract_json",
    "invoke_json",
    "load_chat_model",
    "override_allow_model_requests",
    "parse_react_xml",
    "parse_with_repair",
    "partial_parse",
    "render_observation",
    "render_response",
    "scripted",
    "wrap_cdata",
]
