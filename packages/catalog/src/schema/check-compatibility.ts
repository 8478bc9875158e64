import { avroReadIssues } from "./avro-compatibility.ts";
import { avroModelOf } from "./avro-model.ts";
import { avscResolutionProblem } from "./avro-resolver.ts";
import { jsonSchemaReadIssues } from "./json-schema-compatibility.ts";
import { jsonSchemaModelOf } from "./json-schema-model.ts";
import { avroMessage, jsonSchemaMessage, type MessageContext } from "./messages.ts";
import { COMPATIBILITY_MODES, modeRequirements, type CompatibilityMode, type Direction } from "./modes.ts";

export type SchemaFormat = "AVRO" | "JSON_SCHEMA";

export interface VersionedSchema {
  version: number;
  definition: string;
}

/** One reason a proposed version breaks a reader under the mode checked. */
export interface Incompatibility {
  /** BACKWARD: the new version cannot read an earlier one's data; FORWARD: an earlier version cannot read the new one's. */
  direction: Direction;
  /** The earlier version involved. */
  version: number;
  /**
   * Rule, in the terms of the checker the registry world knows: Avro's
   * (READER_FIELD_MISSING_DEFAULT_VALUE, TYPE_MISMATCH, NAME_MISMATCH,
   * FIXED_SIZE_MISMATCH, MISSING_ENUM_SYMBOLS, MISSING_UNION_BRANCH) or
   * Confluent's JSON Schema difference types (PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, ...).
   */
  rule: string;
  /** Dotted field path ("customer.email", "lines[].sku"); "" for the whole record. */
  path: string;
  /** Where Confluent would point: "/fields/3/type" (Avro) or "#/properties/email" (JSON Schema). */
  location: string;
  /** One sentence: the change, then who cannot read what under which mode. */
  message: string;
}

export interface CompatibilityResult {
  compatible: boolean;
  mode: CompatibilityMode;
  /** Earlier versions the mode compared with (none under NONE or for a first version). */
  checkedVersions: number[];
  issues: Incompatibility[];
}

export interface CompatibilityInput {
  format: SchemaFormat;
  mode: CompatibilityMode;
  candidate: VersionedSchema;
  /** Earlier versions, in any order; the latest is the highest version number. */
  previous: VersionedSchema[];
}

/** A finding between one reader and one writer, to be put in words once the mode is known. */
interface PairFinding {
  rule: string;
  path: string;
  location: string;
  render: (ctx: MessageContext) => string;
}

function pairFindings(format: SchemaFormat, reader: string, writer: string, askAvsc: boolean): PairFinding[] {
  if (format === "JSON_SCHEMA") {
    return jsonSchemaReadIssues(jsonSchemaModelOf(reader), jsonSchemaModelOf(writer)).map((d) => ({
      rule: d.type,
      path: d.path,
      location: d.location,
      render: (ctx) => jsonSchemaMessage(d, ctx),
    }));
  }
  const findings: PairFinding[] = avroReadIssues(avroModelOf(reader), avroModelOf(writer)).map((issue) => ({
    rule: issue.rule,
    path: issue.path,
    location: issue.location,
    render: (ctx) => avroMessage(issue, ctx),
  }));
  if (askAvsc && findings.length === 0) {
    const problem = avscResolutionProblem(reader, writer);
    if (problem) {
      findings.push({
        rule: "AVRO_RESOLUTION_FAILED",
        path: "",
        location: "/",
        render: (ctx) => `avsc cannot resolve the schemas (${problem}): readers of v${ctx.direction === "BACKWARD" ? ctx.newVersion : ctx.oldVersion} cannot read data written with v${ctx.direction === "BACKWARD" ? ctx.oldVersion : ctx.newVersion} under ${ctx.mode}`,
      });
    }
  }
  return findings;
}

/** Findings per (earlier version, direction), computed once and shared by every mode. */
class PairTable {
  private readonly cells = new Map<string, PairFinding[]>();
  readonly ordered: VersionedSchema[];

  constructor(private readonly format: SchemaFormat, private readonly candidate: VersionedSchema, previous: VersionedSchema[]) {
    this.ordered = [...previous].sort((a, b) => a.version - b.version);
  }

  get latest(): VersionedSchema | undefined {
    return this.ordered[this.ordered.length - 1];
  }

  findings(earlier: VersionedSchema, direction: Direction): PairFinding[] {
    const key = `${earlier.version}:${direction}`;
    let found = this.cells.get(key);
    if (!found) {
      const [reader, writer] = direction === "BACKWARD" ? [this.candidate.definition, earlier.definition] : [earlier.definition, this.candidate.definition];
      found = pairFindings(this.format, reader, writer, earlier === this.latest);
      this.cells.set(key, found);
    }
    return found;
  }

  result(mode: CompatibilityMode): CompatibilityResult {
    const { directions, transitive } = modeRequirements(mode);
    const latest = this.latest;
    const against = directions.length === 0 || !latest ? [] : transitive ? this.ordered : [latest];
    const issues: Incompatibility[] = [];
    for (const earlier of against) {
      for (const direction of directions) {
        const ctx: MessageContext = { direction, newVersion: this.candidate.version, oldVersion: earlier.version, mode };
        for (const f of this.findings(earlier, direction)) {
          issues.push({ direction, version: earlier.version, rule: f.rule, path: f.path, location: f.location, message: f.render(ctx) });
        }
      }
    }
    return { compatible: issues.length === 0, mode, checkedVersions: against.map((v) => v.version), issues };
  }
}

/**
 * Checks a proposed schema version against the earlier versions its mode
 * names, with Confluent Schema Registry's semantics: BACKWARD and FORWARD
 * against the latest version, their _TRANSITIVE forms against every earlier
 * one, FULL both ways, NONE nothing. Definitions must be valid schemas of
 * `format` (see `schemaDefinitionProblem`).
 */
export function checkCompatibility(input: CompatibilityInput): CompatibilityResult {
  return new PairTable(input.format, input.candidate, input.previous).result(input.mode);
}

/** The verdict under every mode at once (the review screen shows the product's and each stricter one). */
export function compatibilityByMode(input: Omit<CompatibilityInput, "mode">): Record<CompatibilityMode, CompatibilityResult> {
  const table = new PairTable(input.format, input.candidate, input.previous);
  return Object.fromEntries(COMPATIBILITY_MODES.map((mode) => [mode, table.result(mode)])) as Record<CompatibilityMode, CompatibilityResult>;
}
