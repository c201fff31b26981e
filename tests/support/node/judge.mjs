#!/usr/bin/env node
// toolcat's second judge: the MCP TypeScript SDK's own JSON Schema validator (Ajv) and its zod
// `ListToolsResultSchema`, spoken to over JSON lines on stdin/stdout (one request a line, one
// response a line, in order). Python side: tests/support/ajv.py. Install once:
//
//     npm ci --prefix tests/support/node
//
// Engines (request field "engine"):
//   "sdk"     (default) `AjvJsonSchemaValidator` exported by @modelcontextprotocol/sdk 1.32.2
//             (dist/esm/validation/ajv-provider.js): `new Ajv({strict: false, validateFormats:
//             true, validateSchema: false, allErrors: true})` + ajv-formats (lines 6-16), Ajv's
//             draft-07 class for every schema whatever its `$schema` says (validateSchema: false,
//             so `$schema` is never looked up), compiled schemas cached by a root `$id` (lines
//             63-67). This is what `Client.callTool` validates `structuredContent` with
//             (dist/esm/client/index.js lines 108, 479-509, 528-547).
//   "2020-12" the same provider class with the same options and formats on Ajv's `Ajv2020` class
//             (what a host that passes its own Ajv2020 instance gets; what the SDK v2 does for a
//             schema without `$schema`).
//   "sdk-v2"  `AjvJsonSchemaValidator` exported by @modelcontextprotocol/client 2.4.0 (the SDK's
//             next major line): the same options, one engine per declared dialect (no `$schema` or
//             2020-12 -> Ajv2020, 2019-09 -> Ajv2019, draft-07/06 -> Ajv), any other `$schema`
//             refused.
// Every compile/validate request gets a fresh validator (as a client that sees only that
// schema); "tools_list" shares one across the tools of the result, as `Client.listTools` does.
//
// Requests ({"id": ..., "op": ...}; the response echoes "id"):
//   {"op": "compile", "schema": S, "engine"?}                -> {"ok": true} | {"ok": false, "error"}
//   {"op": "validate", "schema": S, "instances": [..], "engine"?, "messages"?: bool}
//        -> {"ok": true, "valid": [true|false|null, ...], "messages"?: [...], "exceptions"?: {i: msg}}
//           (null: the compiled validator threw on that instance) | {"ok": false, "error"}
//   {"op": "tools_list", "result": R, "sdk"?: "v1"|"v2"}
//        -> {"ok": bool, "issues": [{"path", "code", "message"}], "client_error": msg|null,
//            "output_schemas": [{"index", "name", "error"}]}
//   {"op": "metaschema", "schema": S} -> {"ok": true, "draft-07": null|[msg], "2020-12": null|[msg]}
//   {"op": "batch", "requests": [...]} -> {"ok": true, "results": [...]}
//   {"op": "ping"} / {"op": "versions"}
// A request that cannot be read or served gets {"ok": false, "request_error": true, "error": ...};
// the process goes on. A batch answers each of its requests in order.

import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import Ajv from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import _addFormats from 'ajv-formats';
import { AjvJsonSchemaValidator as SdkValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { ListToolsResultSchema as ListToolsResultV1 } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator as SdkV2Validator } from '@modelcontextprotocol/client/validators/ajv';
import { ListToolsResultSchema as ListToolsResultV2 } from '@modelcontextprotocol/core';

const HERE = dirname(fileURLToPath(import.meta.url));
const addFormats = _addFormats.default ?? _addFormats;
const MAX_MESSAGE = 600;

// The SDK's options (sdk dist/esm/validation/ajv-provider.js lines 7-12), on another Ajv class.
function sdkOptionsOn(AjvClass) {
    const ajv = new AjvClass({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
    addFormats(ajv);
    return ajv;
}

const ENGINES = {
    sdk: () => new SdkValidator(),
    '2020-12': () => new SdkValidator(sdkOptionsOn(Ajv2020)),
    'sdk-v2': () => new SdkV2Validator()
};

function engineFor(req) {
    const name = req.engine ?? 'sdk';
    const make = ENGINES[name];
    if (!make) throw new RequestError(`unknown engine ${JSON.stringify(name)} (one of ${Object.keys(ENGINES).join(', ')})`);
    return make();
}

class RequestError extends Error {}

function message(e) {
    const text = e instanceof Error ? `${e.message}` : String(e);
    return text.length > MAX_MESSAGE ? text.slice(0, MAX_MESSAGE) + '...' : text;
}

function need(req, field) {
    if (!(field in req)) throw new RequestError(`request has no "${field}"`);
    return req[field];
}

function compile(req) {
    const schema = need(req, 'schema');
    const validator = engineFor(req);
    try {
        return { ok: true, check: validator.getValidator(schema) };
    } catch (e) {
        return { ok: false, error: message(e) };
    }
}

const OPS = {
    ping: () => ({ ok: true }),

    versions: () => {
        const version = p => JSON.parse(readFileSync(join(HERE, 'node_modules', p, 'package.json'), 'utf8')).version;
        const pkgs = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/client', '@modelcontextprotocol/core', 'ajv', 'ajv-formats', 'zod'];
        return { ok: true, node: process.version, packages: Object.fromEntries(pkgs.map(p => [p, version(p)])), engines: Object.keys(ENGINES) };
    },

    compile: req => {
        const c = compile(req);
        return c.ok ? { ok: true } : c;
    },

    validate: req => {
        const instances = need(req, 'instances');
        if (!Array.isArray(instances)) throw new RequestError('"instances" must be an array');
        const c = compile(req);
        if (!c.ok) return c;
        const valid = [];
        const messages = req.messages ? [] : undefined;
        let exceptions;
        instances.forEach((instance, i) => {
            try {
                const r = c.check(instance);
                valid.push(r.valid);
                if (messages) messages.push(r.valid ? null : message(r.errorMessage ?? ''));
            } catch (e) {
                valid.push(null);
                if (messages) messages.push(null);
                (exceptions ??= {})[i] = message(e);
            }
        });
        const out = { ok: true, valid };
        if (messages) out.messages = messages;
        if (exceptions) out.exceptions = exceptions;
        return out;
    },

    // What Client.listTools does (sdk dist/esm/client/index.js lines 554-559): the result is parsed
    // with ListToolsResultSchema (a failed parse rejects the request), then cacheToolMetadata
    // (lines 528-547) compiles every tool's outputSchema in order with one validator instance;
    // the first compile error is thrown out of listTools. Here every tool is tried and reported.
    tools_list: req => {
        const result = need(req, 'result');
        const sdk = req.sdk ?? 'v1';
        const schema = { v1: ListToolsResultV1, v2: ListToolsResultV2 }[sdk];
        if (!schema) throw new RequestError(`unknown sdk ${JSON.stringify(sdk)} (v1 or v2)`);
        const parsed = schema.safeParse(result);
        const issues = parsed.success ? [] : parsed.error.issues.map(i => ({ path: i.path, code: i.code, message: message(i.message) }));
        const outputSchemas = [];
        let clientError = parsed.success ? null : `tools/list result refused by ListToolsResultSchema (${issues.length} issue(s))`;
        if (parsed.success) {
            const validator = sdk === 'v1' ? new SdkValidator() : new SdkV2Validator();
            parsed.data.tools.forEach((tool, index) => {
                if (!tool.outputSchema) return;
                let error = null;
                try {
                    validator.getValidator(tool.outputSchema);
                } catch (e) {
                    error = message(e);
                    clientError ??= `tool ${JSON.stringify(tool.name)}: ${error}`;
                }
                outputSchemas.push({ index, name: tool.name, error });
            });
        }
        return { ok: parsed.success, issues, client_error: clientError, output_schemas: outputSchemas };
    },

    metaschema: req => {
        const schema = need(req, 'schema');
        const out = { ok: true };
        for (const [dialect, ajv, uri] of META) {
            try {
                out[dialect] = ajv.validate(uri, schema) ? null : ajv.errors.map(e => message(`${e.instancePath || '/'} ${e.message}`));
            } catch (e) {
                out[dialect] = [message(e)];
            }
        }
        return out;
    },

    batch: req => {
        const requests = need(req, 'requests');
        if (!Array.isArray(requests)) throw new RequestError('"requests" must be an array');
        return { ok: true, results: requests.map(r => serve(r, false)) };
    }
};

// Metaschema checks (what Ajv's default validateSchema: true would do, and what the SDK turns off).
const META = [
    ['draft-07', new Ajv({ strict: false, allErrors: true }), 'http://json-schema.org/draft-07/schema'],
    ['2020-12', new Ajv2020({ strict: false, allErrors: true }), 'https://json-schema.org/draft/2020-12/schema']
];

function serve(req, top = true) {
    try {
        if (req === null || typeof req !== 'object' || Array.isArray(req)) throw new RequestError('a request is a JSON object');
        const op = OPS[req.op];
        if (!op || (!top && req.op === 'batch')) throw new RequestError(`unknown op ${JSON.stringify(req.op)}`);
        return op(req);
    } catch (e) {
        return { ok: false, request_error: true, error: e instanceof RequestError ? e.message : `judge error: ${message(e)}` };
    }
}

function respond(obj) {
    let line;
    try {
        line = JSON.stringify(obj);
    } catch (e) {
        line = JSON.stringify({ id: obj.id ?? null, ok: false, error: `judge error: response not serializable: ${message(e)}` });
    }
    process.stdout.write(line + '\n');
}

process.on('uncaughtException', e => {
    process.stderr.write(`judge: uncaught ${message(e)}\n`);
});

if (process.argv.includes('--check')) {
    respond(OPS.versions());
    process.exit(0);
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on('line', line => {
    if (!line.trim()) return;
    let req;
    try {
        req = JSON.parse(line);
    } catch (e) {
        respond({ id: null, ok: false, request_error: true, error: `bad request line: ${message(e)}` });
        return;
    }
    const id = req !== null && typeof req === 'object' ? (req.id ?? null) : null;
    respond({ id, ...serve(req) });
});
rl.on('close', () => process.exit(0));
