import { Checkpoint } from '../../requests/checkpoint.ts'
import type { Action } from './action.ts'

/** The storage extension stores the models when a Checkpoint runs; the action itself only makes the request supported. */
export class CheckpointAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Checkpoint
  }

  execute (): void {}
}
