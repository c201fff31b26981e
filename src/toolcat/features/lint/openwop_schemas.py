"""The OpenWOP v1 descriptor schemas TC103 validates against (data, Apache-2.0, OpenWOP).

Exact copies of ``schemas/tool-descriptor.schema.json`` (openwop/openwop-app-install
75b28328fa56ae2dcb488cc7f7a608c141bb8489) and ``schemas/compact-tool-descriptor.schema.json``
(RFC 0112, openwop/openwop-sdks 04b5b6a0bd1855d8a9a25008bfda6719325de64c); provenance in
``../shared/spec/openwop/SOURCE.md``. A test checks they equal the files in the shared spec
folder.
"""

from __future__ import annotations

import json
from functools import lru_cache

TOOL_DESCRIPTOR_TEXT = r'''{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://openwop.dev/spec/v1/tool-descriptor.schema.json",
  "title": "ToolDescriptor",
  "description": "RFC 0078. A portable, read-only description of one tool, unifying the five openwop tool surfaces (node-pack / workflow / MCP / connector / host-extension) behind one stable shape. Returned by `GET /v1/tools` + `GET /v1/tools/{toolId}` when the host advertises `capabilities.toolCatalog.supported: true`. The descriptor DESCRIBES a tool; it never carries credential material (SR-1) and is not an invocation path (tools are invoked on their existing surfaces).",
  "type": "object",
  "additionalProperties": false,
  "required": ["toolId", "source", "safetyTier"],
  "properties": {
    "toolId": {
      "type": "string",
      "minLength": 1,
      "description": "Stable, host-unique tool identifier in the `<scope>:<tool-id>` form RFC 0077 `toolAllowlist` references (`openwop:` core, `mcp:` MCP-namespaced, `connector:` connector, `<vendor>.<host>` / `x-host-<vendor>-*` host-extension). The keyspace SPANS sources so a single allowlist entry resolves to exactly one descriptor; the `<scope>` prefix disambiguates by construction (RFC 0078 §UQ1). MUST be stable across catalog reads for a given host version so an agent's `toolAllowlist` keeps resolving."
    },
    "source": {
      "type": "string",
      "enum": ["node-pack", "workflow", "mcp", "connector", "host-extension"],
      "description": "Which surface backs the tool. `node-pack`: a pack typeId (RFC 0003); `workflow`: a workflow-as-tool (`core.subWorkflow` / RFC 0013); `mcp`: an MCP server tool (`host.mcp`); `connector`: an RFC 0045 connector action; `host-extension`: an `x-host-<vendor>-*` scope (RFC 0069)."
    },
    "title": { "type": "string", "description": "MAY — human-readable name for UI." },
    "description": { "type": "string", "description": "MAY — one-line summary for a tool picker." },
    "inputSchema": { "type": "object", "description": "MAY — JSON Schema (2020-12) for the tool's arguments. Absent ⇒ opaque/host-interpreted args. RECOMMENDED (not required) to be the RFC 0030 Tier-1 universal subset for tools that feed an LLM tool-call (RFC 0078 §UQ2)." },
    "outputSchema": { "type": "object", "description": "MAY — JSON Schema for the tool's result." },
    "auth": {
      "type": "object",
      "additionalProperties": false,
      "description": "MAY — what the caller must supply/hold to invoke. Composes RFC 0049 (scopes) + RFC 0046 (credentials).",
      "properties": {
        "scopes": { "type": "array", "items": { "type": "string" }, "uniqueItems": true, "description": "RFC 0049 scopes the principal MUST hold; per-tool authorization fails closed (RFC 0064 §C)." },
        "credentialRef": { "type": "boolean", "description": "true ⇒ the tool needs a host-stored credential reference (RFC 0046); the catalog NEVER carries credential material (SR-1)." }
      }
    },
    "egress": {
      "type": "string",
      "enum": ["none", "safe-fetch", "host-mediated", "host-owned"],
      "description": "MAY — outbound-network posture. `none`: no egress; `safe-fetch`: via the host's RFC 0076 §B `ctx.http.safeFetch` (SSRF-guarded); `host-mediated`: host-proxied non-safeFetch; `host-owned`: the host owns the egress story (e.g. a host-extension)."
    },
    "approval": {
      "type": "string",
      "enum": ["never", "conditional", "always"],
      "description": "MAY — whether invocation requires an RFC 0051 approval interrupt. `conditional` ⇒ host-policy (e.g. over a cost/scope threshold)."
    },
    "replayPolicy": {
      "type": "string",
      "enum": ["deterministic", "idempotent", "non-deterministic"],
      "description": "MAY — replay posture (`replay.md`). `deterministic`: pure/replay-safe; `idempotent`: safe under the Layer-2 idempotency key (`idempotency.md`); `non-deterministic`: the host MUST cache the observable result (RFC 0041 §C) so replay reproduces the sequence."
    },
    "safetyTier": {
      "type": "string",
      "enum": ["pure", "read", "write", "exec"],
      "description": "REQUIRED. The tool's DATA-EFFECT classification: `pure`: no external side effects; `read`: reads external state; `write`: mutates external state; `exec`: arbitrary-command/`exec`-class — per RFC 0069 this MUST have `source: \"host-extension\"` (exec is never protocol-tier). A consumer uses this to gate/warn. The host MUST ASSIGN `safetyTier` explicitly as per-tool metadata; it is NOT derivable from a permission / approval / risk tier — those are an ORTHOGONAL authorization axis (a read-only tool can be high-approval/restricted while being `safetyTier:\"read\"`). A host that mechanically maps its risk tier onto `safetyTier` mis-advertises."
    },
    "costHint": { "type": "string", "enum": ["low", "medium", "high"], "description": "MAY — advisory cost magnitude for planning UX. Non-normative." },
    "latencyHint": { "type": "string", "enum": ["low", "medium", "high"], "description": "MAY — advisory latency magnitude. Non-normative." }
  },
  "allOf": [
    {
      "$comment": "RFC 0078 §C-1 / §F-4: an exec-tier tool MUST be host-extension-sourced (RFC 0069 — exec is never protocol-tier).",
      "if": { "properties": { "safetyTier": { "const": "exec" } }, "required": ["safetyTier"] },
      "then": { "properties": { "source": { "const": "host-extension" } }, "required": ["source"] }
    }
  ]
}'''

COMPACT_TOOL_DESCRIPTOR_TEXT = r'''{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://openwop.dev/spec/v1/compact-tool-descriptor.schema.json",
  "title": "CompactToolDescriptor",
  "description": "RFC 0112. A lossy, model-facing projection of `ToolDescriptor` (tool-descriptor.schema.json) returned by `GET /v1/tools?view=compact` + `GET /v1/tools/{toolId}?view=compact` when the host advertises `capabilities.toolCatalog.compactView: true`. Heavy descriptive fields (`outputSchema`, `auth`, `egress`, `approval`, `replayPolicy`, `costHint`, `latencyHint`) are dropped, and any `inputSchema` is bounded to the self-contained compact structural subset (top-level `type: \"object\"` with `properties`; no `$ref`/`oneOf`/`allOf`/`anyOf`/`not`/`patternProperties`/`dependentSchemas`). The subset is the stable structural core of RFC 0030 Tier-1, cited as rationale but pinned HERE so conformance is machine-checkable and immune to that informative table's drift. Like the full descriptor, a CompactToolDescriptor never carries credential material (SR-1) and is not an invocation path.",
  "type": "object",
  "additionalProperties": false,
  "required": ["toolId", "source", "safetyTier"],
  "properties": {
    "toolId": {
      "type": "string",
      "minLength": 1,
      "description": "Unchanged from ToolDescriptor. Stable, host-unique tool identifier in the `<scope>:<tool-id>` form; MUST be stable across catalog reads for a given host version (tool-catalog.md §C MUST 3). The compact `tools[]` MUST carry the same `toolId` set as the standard view for the same principal (projection completeness)."
    },
    "source": {
      "type": "string",
      "enum": ["node-pack", "workflow", "mcp", "connector", "host-extension"],
      "description": "Retained from ToolDescriptor so the `safetyTier: \"exec\" ⇒ source: \"host-extension\"` cross-field MUST (RFC 0069) stays expressible. Which surface backs the tool: `node-pack`/`workflow`/`mcp`/`connector`/`host-extension`."
    },
    "safetyTier": {
      "type": "string",
      "enum": ["pure", "read", "write", "exec"],
      "description": "REQUIRED. The tool's DATA-EFFECT classification (`pure`/`read`/`write`/`exec`); per RFC 0069 an `exec` tool MUST be `source: \"host-extension\"`. Host-assigned, not derivable from a permission/approval/risk tier."
    },
    "title": { "type": "string", "description": "MAY — short human-readable label for a model-facing tool picker." },
    "description": {
      "type": "string",
      "description": "MAY — one-line summary; the host SHOULD truncate to a model-facing summary in the compact view."
    },
    "inputSchema": {
      "type": "object",
      "description": "MAY — the tool's argument schema bounded to the compact structural subset (RFC 0112). When present it MUST have top-level `type: \"object\"` with an explicit `properties` map, and MUST NOT use `$ref`, `oneOf`, `allOf`, `anyOf`, `not`, `patternProperties`, or `dependentSchemas` AT ANY NESTING DEPTH (including inside nested property schemas). Absent ⇒ opaque/host-interpreted args. NOTE: the `propertyNames` clause below is a TOP-LEVEL structural floor only; the total any-depth constraint is enforced by the RFC 0112 conformance scenario (a schema-aware recursive walk), since pure JSON Schema cannot express it without recursion gymnastics.",
      "required": ["type", "properties"],
      "properties": {
        "type": { "const": "object", "description": "Top-level MUST be `\"object\"`." },
        "properties": { "type": "object", "description": "The argument property map (MUST be present)." }
      },
      "propertyNames": {
        "$comment": "RFC 0112 compact structural subset (TOP-LEVEL FLOOR): forbid the heavy/non-portable keywords as top-level inputSchema keys. The total any-depth constraint is enforced by conformance.",
        "not": { "enum": ["$ref", "oneOf", "allOf", "anyOf", "not", "patternProperties", "dependentSchemas"] }
      }
    }
  },
  "allOf": [
    {
      "$comment": "RFC 0069 / tool-catalog.md §C-1: an exec-tier tool MUST be host-extension-sourced (exec is never protocol-tier). Mirrors tool-descriptor.schema.json.",
      "if": { "properties": { "safetyTier": { "const": "exec" } }, "required": ["safetyTier"] },
      "then": { "properties": { "source": { "const": "host-extension" } }, "required": ["source"] }
    }
  ]
}'''


@lru_cache(maxsize=None)
def tool_descriptor() -> dict:
    return json.loads(TOOL_DESCRIPTOR_TEXT)


@lru_cache(maxsize=None)
def compact_tool_descriptor() -> dict:
    return json.loads(COMPACT_TOOL_DESCRIPTOR_TEXT)
