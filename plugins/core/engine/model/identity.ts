/**
 * Points at a stored model without embedding it: tokens keep identities, never models,
 * so a token never carries stale payment data. `modelName` is the storage's model name.
 */
export class Identity {
  readonly id: string
  readonly modelName: string

  constructor (id: string, modelName: string) {
    this.id = id
    this.modelName = modelName
  }

  toString (): string {
    return `${this.modelName}#${this.id}`
  }

  toJSON (): { id: string, modelName: string } {
    return { id: this.id, modelName: this.modelName }
  }
}
