import { describeAvro, fieldsByName, fieldTypeIds, structuralId, type AvroField, type AvroNode } from "./avro-model.ts";

/**
 * Avro's schema-resolution rules (specification, "Schema Resolution") as Avro's
 * own checker (`org.apache.avro.SchemaCompatibility`, which Confluent Schema
 * Registry runs) applies them, walking a reader schema against a writer schema
 * and naming every place where data written with the writer cannot be read.
 *
 * Rule names are Avro's: READER_FIELD_MISSING_DEFAULT_VALUE, TYPE_MISMATCH,
 * NAME_MISMATCH, FIXED_SIZE_MISMATCH, MISSING_ENUM_SYMBOLS, MISSING_UNION_BRANCH.
 */
export type AvroRule =
  | "READER_FIELD_MISSING_DEFAULT_VALUE"
  | "TYPE_MISMATCH"
  | "NAME_MISMATCH"
  | "FIXED_SIZE_MISMATCH"
  | "MISSING_ENUM_SYMBOLS"
  | "MISSING_UNION_BRANCH";

export interface AvroReadIssue {
  rule: AvroRule;
  /** Dotted field path in the reader ("customer.email", "lines[].sku"); "" at the top. */
  path: string;
  /** Location as Avro and Confluent report it: "/fields/2/type". */
  location: string;
  /** The reader's and the writer's type at that place, in words. */
  reader: string;
  writer: string;
  /**
   * By rule: the field's name; the enum symbols the reader lacks; the writer's
   * and the reader's full names; the writer's and the reader's fixed sizes;
   * the writer's type a union lacks.
   */
  names: string[];
}

/**
 * Primitive promotions Avro allows when reading (spec): the writer's type on
 * the right may be read as the reader's on the left.
 */
const PROMOTIONS: Record<string, readonly string[]> = {
  long: ["int"],
  float: ["int", "long"],
  double: ["int", "long", "float"],
  string: ["bytes"],
  bytes: ["string"],
};

/**
 * Where the walk is, as a chain of steps from the root: cheap to extend at
 * every field, turned into strings only when something is reported.
 */
interface Place {
  parent?: Place;
  /** Location segment(s): "fields/3", "type", "items", "0". */
  segment?: string;
  /** Field-path step: a field name, "[]" for array items, "{}" for map values. */
  field?: string;
}

const ROOT: Place = {};

function at(parent: Place, segment: string, field?: string): Place {
  return field === undefined ? { parent, segment } : { parent, segment, field };
}

function pathOf(place: Place): string {
  const steps: string[] = [];
  for (let p: Place | undefined = place; p; p = p.parent) if (p.field !== undefined) steps.push(p.field);
  return steps.reverse().reduce((path, step) => (step === "[]" || step === "{}" || path === "" ? path + step : `${path}.${step}`), "");
}

function locationOf(place: Place): string {
  const segments: string[] = [];
  for (let p: Place | undefined = place; p; p = p.parent) if (p.segment !== undefined) segments.push(p.segment);
  return "/" + segments.reverse().join("/");
}

class AvroReadWalker {
  readonly issues: AvroReadIssue[] = [];

  /**
   * Pairs being walked, shared by a walker and its trials: a recursive schema
   * that meets the same pair again is compatible unless shown otherwise (as
   * Avro's checker does). Entries leave when their walk ends.
   */
  constructor(private readonly inProgress = new Map<AvroNode, Set<AvroNode>>()) {}

  walk(reader: AvroNode, writer: AvroNode, place: Place): boolean {
    if (sameType(reader, writer)) return true;
    const seen = this.inProgress.get(reader);
    if (seen?.has(writer)) return true;
    if (seen) seen.add(writer);
    else this.inProgress.set(reader, new Set([writer]));
    try {
      return this.compare(reader, writer, place);
    } finally {
      const set = this.inProgress.get(reader);
      set?.delete(writer);
      if (set?.size === 0) this.inProgress.delete(reader);
    }
  }

  /** Same walk with its own issue list: union branches are tried before one is blamed. */
  private trial(reader: AvroNode, writer: AvroNode, place: Place): { ok: boolean; issues: AvroReadIssue[] } {
    const sub = new AvroReadWalker(this.inProgress);
    const ok = sub.walk(reader, writer, place);
    return { ok, issues: sub.issues };
  }

  private fail(rule: AvroRule, reader: AvroNode, writer: AvroNode, place: Place, names: string[] = []): false {
    this.issues.push({
      rule,
      path: pathOf(place),
      location: locationOf(place),
      reader: describeAvro(reader),
      writer: describeAvro(writer),
      names,
    });
    return false;
  }

  private compare(reader: AvroNode, writer: AvroNode, place: Place): boolean {
    if (writer.kind === "union") {
      // Every branch the writer may have used must be readable.
      let ok = true;
      writer.branches.forEach((branch, index) => {
        const here = reader.kind === "union" ? at(place, String(index)) : place;
        if (reader.kind === "union") ok = this.readIntoUnion(reader, branch, here) && ok;
        else ok = this.walk(reader, branch, here) && ok;
      });
      return ok;
    }
    if (reader.kind === "union") return this.readIntoUnion(reader, writer, place);

    if (reader.kind === "primitive" && writer.kind === "primitive") {
      if (reader.type === writer.type || PROMOTIONS[reader.type]?.includes(writer.type)) return true;
      return this.fail("TYPE_MISMATCH", reader, writer, place);
    }
    if (reader.kind !== writer.kind) return this.fail("TYPE_MISMATCH", reader, writer, place);

    switch (reader.kind) {
      case "array":
        return this.walk(reader.items, (writer as typeof reader).items, at(place, "items", "[]"));
      case "map":
        return this.walk(reader.values, (writer as typeof reader).values, at(place, "values", "{}"));
      case "fixed": {
        const w = writer as typeof reader;
        const named = this.checkName(reader, w, place);
        if (reader.size !== w.size) {
          return this.fail("FIXED_SIZE_MISMATCH", reader, w, at(place, "size"), [String(w.size), String(reader.size)]);
        }
        return named;
      }
      case "enum": {
        const w = writer as typeof reader;
        const named = this.checkName(reader, w, place);
        const missing = w.symbols.filter((s) => !reader.symbols.includes(s)).sort();
        // Avro 1.9+: an enum default in the reader takes every symbol it lacks.
        const covered = reader.default !== undefined && reader.symbols.includes(reader.default);
        if (missing.length > 0 && !covered) {
          return this.fail("MISSING_ENUM_SYMBOLS", reader, w, at(place, "symbols"), missing);
        }
        return named;
      }
      case "record": {
        const w = writer as typeof reader;
        const named = this.checkName(reader, w, place);
        return this.checkFields(reader, w, place) && named;
      }
      default:
        return true;
    }
  }

  /**
   * A writer value read into a reader union: the first branch that can read it
   * wins. When none can, the branch of the same kind and name explains best
   * what stopped it; otherwise the union lacks the writer's type.
   */
  private readIntoUnion(reader: AvroNode & { kind: "union" }, writer: AvroNode, place: Place): boolean {
    for (const branch of reader.branches) {
      if (this.trial(branch, writer, place).ok) return true;
    }
    const sameKind = reader.branches.filter((b) => b.kind === writer.kind && (!("name" in b) || !("name" in writer) || b.name === writer.name));
    const closest = sameKind.length === 1 ? sameKind[0] : undefined;
    if (closest && closest.kind !== "primitive") {
      this.issues.push(...this.trial(closest, writer, place).issues);
      return false;
    }
    return this.fail("MISSING_UNION_BRANCH", reader, writer, place, [describeAvro(writer)]);
  }

  /** Named types match on their unqualified name, or when one of the reader's aliases is the writer's full name. */
  private checkName(reader: AvroNode & { name: string; fullName: string; aliases: string[] }, writer: AvroNode & { name: string; fullName: string }, place: Place): boolean {
    if (reader.name === writer.name || reader.aliases.includes(writer.fullName)) return true;
    return this.fail("NAME_MISMATCH", reader, writer, at(place, "name"), [writer.fullName, reader.fullName]);
  }

  private checkFields(reader: AvroNode & { kind: "record" }, writer: AvroNode & { kind: "record" }, place: Place): boolean {
    let ok = true;
    const byName = fieldsByName(writer);
    const readerIds = fieldTypeIds(reader);
    const writerIds = fieldTypeIds(writer);
    for (const field of reader.fields) {
      const source = writerFieldFor(byName, field);
      if (!source) {
        // The writer never wrote it: the reader must be able to fill it in.
        if (!field.hasDefault) ok = this.fail("READER_FIELD_MISSING_DEFAULT_VALUE", reader, writer, at(place, `fields/${field.position}`, field.name), [field.name]);
        continue;
      }
      const id = readerIds[field.position];
      if (field.type === source.type || (id !== undefined && id === writerIds[source.position])) continue;
      ok = this.walk(field.type, source.type, at(at(place, `fields/${field.position}`, field.name), "type")) && ok;
    }
    return ok;
  }
}

/** The same type on both sides always reads: most of a new version is unchanged. */
function sameType(reader: AvroNode, writer: AvroNode): boolean {
  if (reader === writer) return true;
  const id = structuralId(reader);
  return id !== undefined && id === structuralId(writer);
}

/** The writer's field a reader field reads: same name first, then the reader field's aliases. */
function writerFieldFor(byName: Map<string, AvroField>, field: AvroField): AvroField | undefined {
  const direct = byName.get(field.name);
  if (direct) return direct;
  for (const alias of field.aliases) {
    const aliased = byName.get(alias);
    if (aliased) return aliased;
  }
  return undefined;
}

/** Every reason data written with `writer` cannot be read with `reader`; empty when it can. */
export function avroReadIssues(reader: AvroNode, writer: AvroNode): AvroReadIssue[] {
  const walker = new AvroReadWalker();
  walker.walk(reader, writer, ROOT);
  return walker.issues;
}
