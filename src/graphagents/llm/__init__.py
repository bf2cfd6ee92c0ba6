"""The LLM layer: model factory, structured output, the XML protocol and test models."""

from .factory import OFFLINE, PROVIDERS, load_chat_model, override_allow_model_requests
from .json_output import ainvoke_json, extract_json, invoke_json
from .limits import MAX_OUTPUT_CHARS
from .scripted import GARBAGE, ScriptedChatModel, ScriptExhaustedError, scripted
from .structured import aask_json, ask_json
from .xml_protocol import (
    REPRINT_PROMPT,
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
    "MAX_OUTPUT_CHARS",
    "OFFLINE",
    "PROVIDERS",
    "REPRINT_PROMPT",
    "ParseOutcome",
    "ReactStep",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "SectionDelta",
    "StreamingXmlSectionsExtractor",
    "ToolCall",
    "XmlProtocolError",
    "aask_json",
    "ainvoke_json",
    "ask_json",
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
