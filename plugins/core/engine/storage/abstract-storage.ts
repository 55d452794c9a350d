import { randomUUID } from 'node:crypto'
import { PAYWIRE_ERR_CONCURRENT_UPDATE, PAYWIRE_ERR_INVALID_MODEL, PAYWIRE_ERR_MODEL_NOT_PERSISTED } from '../errors.ts'
import { humanifyValue } from '../observability/humanify.ts'
import { Identity } from '../model/identity.ts'
import type { PaymentFacets } from './payment-search.ts'
import { storableJson } from './storable.ts'
import type { ReadCache } from './read-cache.ts'
import type { Criteria, FindByOptions, FindOptions, ModelClass, Storage } from './storage.ts'

export interface StorageOptions<T extends object> {
  /** Property holding the id. Default: "id". */
  idProperty?: string
  /** Name used in identities; defaults to the class name. Must be unique per registry. */
  modelName?: string
  /** How a model becomes a JSON-safe record and back. Default: own fields, or the class's static fromJSON. */
  codec?: ModelCodec<T>
  /**
   * Fields (dotted paths allowed) findBy() looks up through an index instead of a scan,
   * for storages that keep indexes (Redis). String values only.
   */
  indexes?: string[]
}

export interface ModelCodec<T> {
  toRecord (model: T): Record<string, unknown>
  fromRecord (record: Record<string, unknown>): T
}

/** A record as a backend keeps it: the JSON-safe fields and the version they were written with. */
export interface StoredRecord {
  record: Record<string, unknown>
  version: number
  /** The record's JSON as the backend holds it, when it has it: the record is not encoded again to remember what was read. */
  json?: string
}

/** Expected version of a write that may replace whatever is stored (a delete of a model never read). */
export const ANY_VERSION = -1

/**
 * One write, computed before any I/O so a backend can check and apply several of them in
 * one atomic step (see StorageBackend.commit): the record, its id, and the version the
 * stored record must still have (0: none may exist yet; ANY_VERSION: no check).
 */
export interface StagedWrite {
  readonly storage: AbstractStorage<object>
  readonly id: string
  /** null deletes the record. */
  readonly record: Record<string, unknown> | null
  readonly json: string | null
  readonly expectedVersion: number
  /** Fields the storage sets on the model once the write is stored (id, timestamps). */
  readonly stamps: Record<string, unknown>
  /**
   * The record as this model instance was read or last written (null: never stored), so
   * the commit can tell what the write changes (a status, a refund) and stage its event.
   */
  readonly previous?: Record<string, unknown> | null
  /**
   * What operators search on and the sweeper picks by (a Payment's status, amounts, times…),
   * read from the record by its gateway in the commit path: a backend that implements
   * PaymentSearch stores them with the record, in the same atomic step. Absent for records
   * that are no payment of a gateway with a PaymentStateReader.
   */
  readonly facets?: PaymentFacets
}

/*
 * The version each model instance was read or last written with: per instance, so two
 * copies of one record read at different times each write against the version they saw,
 * whichever storage object of that record they are handed to. A WeakMap keeps models free
 * of storage fields.
 */
const versions = new WeakMap<object, number>()
// The JSON each instance was read or last written as: a string, because codecs may share
// nested objects between the record and the model, which the request then changes.
const reads = new WeakMap<object, string>()
// What the codec made of each instance right after it was read or written: compared with what
// it makes of it now, it tells an untouched model (whose write would only bump the version)
// from a changed one whatever order the backend keeps keys in (PostgreSQL's jsonb sorts them).
const pristine = new WeakMap<object, string>()

/*
 * The time stage() stamps, as toISOString() writes it: several writes share a millisecond under
 * load, and the text of the last one is kept (a pure function of the millisecond).
 */
let lastMs = Number.NaN
let lastIso = ''

function isoNow (): string {
  const ms = Date.now()
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString()
    lastMs = ms
  }
  return lastIso
}

type Revivable<T> = ModelClass<T & object> & { fromJSON?: (json: any) => T }

/*
 * The codecs defaultCodec makes, by how their record relates to the model: the storage then
 * gets the record's JSON without encoding twice (see #encode, settle, revive). A codec given
 * in the options is always asked.
 */
const shallowCodecs = new WeakSet<object>() // toRecord: the model's own fields, copied shallowly
const jsonCodecs = new WeakSet<object>() // toRecord: the model's JSON, parsed

export function defaultCodec<T extends object> (Model: Revivable<T>): ModelCodec<T> {
  const fromJSON = Model.fromJSON
  if (fromJSON === undefined) {
    const shallow: ModelCodec<T> = {
      toRecord: (model) => ({ ...model }) as Record<string, unknown>,
      fromRecord: (record) => Object.assign(new Model(), record)
    }
    shallowCodecs.add(shallow)
    return shallow
  }
  const json: ModelCodec<T> = {
    toRecord: (model) => JSON.parse(JSON.stringify(model)) as Record<string, unknown>,
    fromRecord: (record) => fromJSON(record)
  }
  jsonCodecs.add(json)
  return json
}

/**
 * True when a shallow copy of the model has exactly the record's fields, the same values
 * (fields left undefined aside, which JSON drops): its JSON then parses to the record again,
 * only perhaps with the keys in another order.
 */
function holdsExactly (model: object, record: Record<string, unknown>): boolean {
  const fields = model as Record<string, unknown>
  let shared = 0
  for (const key of Object.keys(fields)) {
    if (Object.hasOwn(record, key)) {
      if (record[key] !== fields[key]) return false
      shared++
    } else if (fields[key] !== undefined) {
      return false
    }
  }
  // A record field the model did not take as its own (an accessor, "__proto__") is no copy.
  return shared === Object.keys(record).length
}

/** True when each stamp is now an own, enumerable field of the model holding the stamped value. */
function stampsLanded (model: object, stamps: Record<string, unknown>): boolean {
  for (const key in stamps) {
    const field = Object.getOwnPropertyDescriptor(model, key)
    if (field === undefined || field.enumerable !== true || field.value !== stamps[key]) return false
  }
  return true
}

/**
 * The shared half of every storage: model checks, ids, timestamps, identities and the
 * versions of the compare-and-set. Concrete storages only move JSON records with their
 * versions (see MemoryStorage, RedisStorage).
 */
export abstract class AbstractStorage<T extends object> implements Storage<T> {
  readonly modelName: string
  protected readonly Model: ModelClass<T>
  protected readonly idProperty: string
  protected readonly codec: ModelCodec<T>
  /**
   * Computes the facets of a write made outside a commit (update(), delete()): Paywire sets
   * it on its Payment storage, so a payment saved directly (prepared, created by the shop)
   * is searchable too. Commits get theirs from the commit path, which reads each record once.
   */
  facetsOf: ((write: StagedWrite) => PaymentFacets | undefined) | undefined
  readonly #shallowCodec: boolean
  readonly #jsonCodec: boolean
  /** The codec's record is a fresh object of this storage's own (defaultCodec): the stamps go straight into it. */
  readonly #ownsRecord: boolean

  constructor (Model: ModelClass<T>, options: StorageOptions<T> = {}) {
    this.Model = Model
    this.modelName = options.modelName ?? Model.name
    this.idProperty = options.idProperty ?? 'id'
    this.codec = options.codec ?? defaultCodec(Model)
    this.#shallowCodec = shallowCodecs.has(this.codec)
    this.#jsonCodec = jsonCodecs.has(this.codec)
    // "__proto__" set on an object is no field: only a spread makes it one.
    this.#ownsRecord = (this.#shallowCodec || this.#jsonCodec) && this.idProperty !== '__proto__'
  }

  create (): T {
    return new this.Model()
  }

  support (model: unknown): model is T {
    return model instanceof this.Model
  }

  /**
   * Gives a model its id now, without saving it (an id it has is kept), so tokens can point
   * at it while its first save is still in flight (Paywire.prepareCapture).
   */
  assignId (model: T): Identity {
    this.assertSupported(model)
    const fields = model as Record<string, unknown>
    const current = fields[this.idProperty]
    if (typeof current !== 'string' || current === '') fields[this.idProperty] = this.generateId()
    return this.identify(model)
  }

  versionOf (model: T): number | undefined {
    return versions.get(model)
  }

  /** True when the model is exactly as this storage last read or wrote it: saving it would change nothing stored. */
  isUnchanged (model: T): boolean {
    const seen = pristine.get(model)
    return seen !== undefined && seen === this.#encode(model)
  }

  /**
   * The write update() would make, checked (a record every storage can keep) but not sent.
   */
  stage (model: T): StagedWrite {
    this.assertSupported(model)
    const fields = model as Record<string, unknown>
    const current = fields[this.idProperty]
    const id = typeof current === 'string' && current !== '' ? current : this.generateId()
    const now = isoNow()
    // Set on the model only once stored, so a failed first save leaves the model unsaved.
    const stamps: Record<string, unknown> = { [this.idProperty]: id }
    if ('updatedAt' in fields) stamps.updatedAt = now
    if ('createdAt' in fields && (typeof fields.createdAt !== 'string' || fields.createdAt === '')) stamps.createdAt = now
    // A copy of the codec's record with the stamps over it, or the same fields in the same order when the record is a copy already.
    const record = this.#ownsRecord ? Object.assign(this.codec.toRecord(model), stamps) : { ...this.codec.toRecord(model), ...stamps }
    const json = storableJson(record, this.modelName)
    const read = reads.get(model)
    return {
      storage: this as AbstractStorage<object>,
      id,
      record,
      json,
      expectedVersion: versions.get(model) ?? 0,
      stamps,
      previous: read === undefined ? null : JSON.parse(read) as Record<string, unknown>
    }
  }

  /** The delete delete() would make: a compare-and-set when this storage read the model. */
  stageDelete (model: T): StagedWrite {
    const { id } = this.identify(model)
    return { storage: this as AbstractStorage<object>, id, record: null, json: null, expectedVersion: versions.get(model) ?? ANY_VERSION, stamps: {} }
  }

  /** After the write was stored (alone or in a commit): the model gets its stamps and its new version. */
  settle (model: T, write: StagedWrite): void {
    if (write.record === null) {
      versions.delete(model)
      reads.delete(model)
      pristine.delete(model)
      return
    }
    Object.assign(model as Record<string, unknown>, write.stamps)
    versions.set(model, Math.max(write.expectedVersion, 0) + 1)
    if (write.json !== null) reads.set(model, write.json)
    // A shallow codec's record was the model's fields with the stamps over them: with the stamps now
    // the model's own fields, in the same places, the model encodes as the JSON just written (and a
    // change made while the write was in flight is not taken for stored).
    const written = this.#shallowCodec && write.json !== null && stampsLanded(model, write.stamps)
    pristine.set(model, written ? write.json as string : this.#encode(model))
  }

  /** Sends one staged write on its own (the step-by-step commit of StorageBackend). */
  async write (write: StagedWrite): Promise<void> {
    await this.doWrite(write)
  }

  async update (model: T): Promise<void> {
    await this.updateThrough(model, async (write) => { await this.doWrite(write) })
  }

  /** update(), its write stored by `store` (a backend storing it with something else: see StorageBackend.saveWithTokens). */
  async updateThrough (model: T, store: (write: StagedWrite) => Promise<void>): Promise<void> {
    const staged = this.stage(model)
    const facets = this.facetsOf?.(staged)
    const write = facets === undefined ? staged : { ...staged, facets }
    await store(write)
    this.settle(model, write)
  }

  async delete (model: T): Promise<void> {
    const write = this.stageDelete(model)
    await this.doWrite(write)
    this.settle(model, write)
  }

  async find (id: string | Identity, options?: FindOptions): Promise<T | null> {
    if (id instanceof Identity) {
      if (id.modelName !== this.modelName) return null
      id = id.id
    }
    const stored = await this.doFind(id, options?.reads)
    return stored === null ? null : this.revive(stored)
  }

  async findMany (ids: readonly string[]): Promise<Array<T | null>> {
    const stored = await this.doFindMany(ids)
    return stored.map((found) => found === null ? null : this.revive(found))
  }

  async findBy (criteria: Criteria, options: FindByOptions = {}): Promise<T[]> {
    const stored = await this.doFindBy(criteria, options)
    return stored.map((found) => this.revive(found))
  }

  identify (model: T): Identity {
    this.assertSupported(model)
    const id = (model as Record<string, unknown>)[this.idProperty]
    if (typeof id !== 'string' || id === '') throw new PAYWIRE_ERR_MODEL_NOT_PERSISTED(this.modelName)
    return new Identity(id, this.modelName)
  }

  /** The error a backend throws when the stored version is not the expected one. */
  conflict (id: string): Error {
    return new PAYWIRE_ERR_CONCURRENT_UPDATE(this.modelName, id)
  }

  protected revive (stored: StoredRecord): T {
    const model = this.codec.fromRecord(stored.record)
    const encoded = this.#encode(model)
    versions.set(model, stored.version)
    // Without the backend's JSON (PostgreSQL), a model holding exactly the record's fields has the
    // record's JSON already: what it was read as is the same record, its keys perhaps in another order.
    const copied = stored.json === undefined && this.#shallowCodec && holdsExactly(model, stored.record)
    reads.set(model, stored.json ?? (copied ? encoded : JSON.stringify(stored.record)))
    pristine.set(model, encoded)
    return model
  }

  /** JSON.stringify(this.codec.toRecord(model)); for a JSON codec that is the model's JSON, without the round trip. */
  #encode (model: T): string {
    return JSON.stringify(this.#jsonCodec ? model : this.codec.toRecord(model))
  }

  protected generateId (): string {
    return randomUUID()
  }

  protected assertSupported (model: unknown): asserts model is T {
    if (!this.support(model)) throw new PAYWIRE_ERR_INVALID_MODEL(this.Model.name, humanifyValue(model))
  }

  /**
   * Stores (or, with a null record, deletes) one record if its stored version is the
   * expected one (0: no record; ANY_VERSION: whatever is stored), as version expected + 1;
   * else throws this.conflict(id) and changes nothing.
   */
  protected abstract doWrite (write: StagedWrite): Promise<void>
  /** `reads`: what the request read ahead (see ReadCache); a backend that finds its record there need not read it. */
  protected abstract doFind (id: string, reads?: ReadCache): Promise<StoredRecord | null>
  /** Override where the backend fetches several records at once. */
  protected async doFindMany (ids: readonly string[]): Promise<Array<StoredRecord | null>> {
    return await Promise.all(ids.map((id) => this.doFind(id)))
  }

  protected abstract doFindBy (criteria: Criteria, options: FindByOptions): Promise<StoredRecord[]>
}

/** The value at a dotted path ("details.id") of a record. */
export function valueAt (record: Record<string, unknown>, path: string): unknown {
  let value: unknown = record
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[part]
  }
  return value
}

/** True when every criteria value equals the record's field; keys may be dotted paths ("details.id"). */
export function matchesCriteria (record: Record<string, unknown>, criteria: Criteria): boolean {
  for (const key in criteria) {
    if (valueAt(record, key) !== criteria[key]) return false
  }
  return true
}
