import { randomUUID } from 'node:crypto'
import { PAYWIRE_ERR_INVALID_MODEL, PAYWIRE_ERR_MODEL_NOT_PERSISTED } from '../errors.ts'
import { humanifyValue } from '../debug/humanify.ts'
import { Identity } from '../model/identity.ts'
import type { Criteria, FindByOptions, ModelClass, Storage } from './storage.ts'

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

type Revivable<T> = ModelClass<T & object> & { fromJSON?: (json: any) => T }

export function defaultCodec<T extends object> (Model: Revivable<T>): ModelCodec<T> {
  const fromJSON = Model.fromJSON
  return {
    toRecord: (model) => (fromJSON === undefined ? { ...model } : JSON.parse(JSON.stringify(model))) as Record<string, unknown>,
    fromRecord: (record) => (fromJSON === undefined ? Object.assign(new Model(), record) : fromJSON(record)) as T
  }
}

/**
 * The shared half of every storage: model checks, ids, timestamps and identities. Concrete
 * storages only move JSON records (see MemoryStorage, RedisStorage).
 */
export abstract class AbstractStorage<T extends object> implements Storage<T> {
  readonly modelName: string
  protected readonly Model: ModelClass<T>
  protected readonly idProperty: string
  protected readonly codec: ModelCodec<T>

  constructor (Model: ModelClass<T>, options: StorageOptions<T> = {}) {
    this.Model = Model
    this.modelName = options.modelName ?? Model.name
    this.idProperty = options.idProperty ?? 'id'
    this.codec = options.codec ?? defaultCodec(Model)
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

  async update (model: T): Promise<void> {
    this.assertSupported(model)
    const fields = model as Record<string, unknown>
    const current = fields[this.idProperty]
    const isNew = typeof current !== 'string' || current === ''
    const id = isNew ? this.generateId() : current as string
    const now = new Date().toISOString()
    const stamps: Record<string, unknown> = { [this.idProperty]: id }
    if ('updatedAt' in fields) stamps.updatedAt = now
    if ('createdAt' in fields && (typeof fields.createdAt !== 'string' || fields.createdAt === '')) stamps.createdAt = now
    await this.doUpdate(id, { ...this.codec.toRecord(model), ...stamps }, isNew)
    // Only after the write succeeded, so a failed first save leaves the model unsaved.
    Object.assign(fields, stamps)
  }

  async delete (model: T): Promise<void> {
    await this.doDelete(this.identify(model).id)
  }

  async find (id: string | Identity): Promise<T | null> {
    if (id instanceof Identity) {
      if (id.modelName !== this.modelName) return null
      id = id.id
    }
    const record = await this.doFind(id)
    return record === null ? null : this.codec.fromRecord(record)
  }

  async findMany (ids: readonly string[]): Promise<Array<T | null>> {
    const records = await this.doFindMany(ids)
    return records.map((record) => record === null ? null : this.codec.fromRecord(record))
  }

  async findBy (criteria: Criteria, options: FindByOptions = {}): Promise<T[]> {
    const records = await this.doFindBy(criteria, options)
    return records.map((record) => this.codec.fromRecord(record))
  }

  identify (model: T): Identity {
    this.assertSupported(model)
    const id = (model as Record<string, unknown>)[this.idProperty]
    if (typeof id !== 'string' || id === '') throw new PAYWIRE_ERR_MODEL_NOT_PERSISTED(this.modelName)
    return new Identity(id, this.modelName)
  }

  protected generateId (): string {
    return randomUUID()
  }

  protected assertSupported (model: unknown): asserts model is T {
    if (!this.support(model)) throw new PAYWIRE_ERR_INVALID_MODEL(this.Model.name, humanifyValue(model))
  }

  protected abstract doUpdate (id: string, record: Record<string, unknown>, isNew: boolean): Promise<void>
  protected abstract doDelete (id: string): Promise<void>
  protected abstract doFind (id: string): Promise<Record<string, unknown> | null>
  /** Override where the backend fetches several records at once. */
  protected async doFindMany (ids: readonly string[]): Promise<Array<Record<string, unknown> | null>> {
    return await Promise.all(ids.map((id) => this.doFind(id)))
  }

  protected abstract doFindBy (criteria: Criteria, options: FindByOptions): Promise<Record<string, unknown>[]>
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
