"use client";

import type { DecodedValueJson } from "@/lib/api-types";

/*
 * A record value as the server decoded and masked it. Masking happened on the
 * server: "[masked]" is all the browser ever receives for a PII field. Text is
 * rendered as text (React escapes it), never as markup.
 */

export function valuePreview(v: DecodedValueJson): string {
  if (v.encoding === "null") return "null (tombstone)";
  if (v.encoding === "raw") return v.undecodable?.raw ? v.undecodable.raw.escaped.slice(0, 120) : "not decodable (bytes withheld)";
  const text = JSON.stringify(v.value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

export function RecordValue({ value }: { value: DecodedValueJson }) {
  if (value.encoding === "null") return <p className="text-sm text-slate-600">No value: a tombstone (deletes the key in a compacted topic).</p>;
  if (value.encoding === "withheld") return <p className="text-sm text-amber-800" data-testid="withheld-value">Withheld: does not match the schema (only viewers with PII access see such values).</p>;
  if (value.encoding === "raw") {
    const u = value.undecodable;
    return (
      <div className="space-y-2 text-sm" data-testid="raw-value">
        <p className="text-rose-800">{u?.reason}</p>
        {u?.raw ? (
          <>
            <p className="text-xs text-slate-500">{u.raw.bytes} bytes{u.raw.truncated ? " (first 4 KiB shown)" : ""}, as escaped text:</p>
            <pre className="overflow-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 font-mono text-xs">{u.raw.escaped}</pre>
            <details>
              <summary className="cursor-pointer text-xs text-indigo-700">Hex</summary>
              <pre className="overflow-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 font-mono text-xs">{u.raw.hex.replace(/(..)/g, "$1 ").trim()}</pre>
            </details>
          </>
        ) : (
          <p className="text-xs text-slate-600">The bytes are withheld: this product has PII fields, and bytes that do not decode cannot be masked.</p>
        )}
      </div>
    );
  }
  return (
    <div className="space-y-1">
      <p className="text-xs text-slate-500">
        {value.encoding === "avro" ? "Avro" : "JSON"}
        {value.wire === "confluent" ? ` · wire format, schema id ${value.schemaId}` : " · plain"}
        {value.schemaVersion !== null ? ` · schema v${value.schemaVersion}` : ""}
        {value.masked.length > 0 ? ` · masked: ${value.masked.join(", ")}` : ""}
      </p>
      {value.note && <p className="text-xs text-amber-800">{value.note}</p>}
      <pre className="max-h-96 overflow-auto rounded bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100" tabIndex={0} aria-label="Decoded value" data-testid="decoded-value">
        {JSON.stringify(value.value, null, 2)}
      </pre>
    </div>
  );
}

export function keyText(key: { text: string | null; hex: string | null } | null): string {
  if (!key) return "null";
  return key.text ?? `0x${key.hex}`;
}
