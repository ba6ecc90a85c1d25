"""The ACP content blocks (text, image, audio, resource links, embedded resources): what a
prompt, a message chunk and a tool call's output are made of, as :class:`~typing.TypedDict`
shapes (protocol v1). Declarations like :mod:`acp_tui.wire.schema`, which builds its messages
from these, imported only under ``TYPE_CHECKING`` at run time, and checked against the
official JSON schema by ``tests/test_schema.py``.

Spec: https://agentclientprotocol.com/protocol/v1/content
"""

from typing import Literal, Required, TypedDict

from acp_tui.wire.constants import Role
from acp_tui.wire.updates import JsonObject


class Annotations(TypedDict, total=False):
    """Optional annotations for the client. The client can use annotations to inform how
    objects are used or displayed Spec: https://agentclientprotocol.com/protocol/v1/content"""

    audience: list[Role] | None
    lastModified: str | None
    priority: float | None
    _meta: JsonObject | None


class TextContent(TypedDict, total=False):
    """Text provided to or from an LLM. Spec:
    https://agentclientprotocol.com/protocol/v1/content"""

    type: Required[Literal["text"]]
    annotations: Annotations | None
    text: Required[str]
    _meta: JsonObject | None


class ImageContent(TypedDict, total=False):
    """An image provided to or from an LLM. Spec:
    https://agentclientprotocol.com/protocol/v1/content"""

    type: Required[Literal["image"]]
    annotations: Annotations | None
    data: Required[str]
    mimeType: Required[str]
    uri: str | None
    _meta: JsonObject | None


class AudioContent(TypedDict, total=False):
    """Audio provided to or from an LLM. Spec:
    https://agentclientprotocol.com/protocol/v1/content"""

    type: Required[Literal["audio"]]
    annotations: Annotations | None
    data: Required[str]
    mimeType: Required[str]
    _meta: JsonObject | None


class ResourceLink(TypedDict, total=False):
    """A resource that the server is capable of reading, included in a prompt or tool call
    result. Spec: https://agentclientprotocol.com/protocol/v1/content"""

    type: Required[Literal["resource_link"]]
    annotations: Annotations | None
    description: str | None
    mimeType: str | None
    name: Required[str]
    size: int | None
    title: str | None
    uri: Required[str]
    _meta: JsonObject | None


class TextResourceContents(TypedDict, total=False):
    """Text-based resource contents. Spec:
    https://agentclientprotocol.com/protocol/v1/content"""

    mimeType: str | None
    text: Required[str]
    uri: Required[str]
    _meta: JsonObject | None


class BlobResourceContents(TypedDict, total=False):
    """Binary resource contents. Spec: https://agentclientprotocol.com/protocol/v1/content"""

    blob: Required[str]
    mimeType: str | None
    uri: Required[str]
    _meta: JsonObject | None


#: The resource of an embedded resource block (untagged: ``text`` or ``blob`` tells).
EmbeddedResourceResource = TextResourceContents | BlobResourceContents


class EmbeddedResource(TypedDict, total=False):
    """The contents of a resource, embedded into a prompt or tool call result. Spec:
    https://agentclientprotocol.com/protocol/v1/content"""

    type: Required[Literal["resource"]]
    annotations: Annotations | None
    resource: Required[EmbeddedResourceResource]
    _meta: JsonObject | None


#: A content block, tagged by ``type``. Spec: https://agentclientprotocol.com/protocol/v1/content
ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource
