import { COMMIT_SCRIPT } from './commit-script.ts'
import { STEP_SCRIPT } from './step-script.ts'

/*
 * On a single Redis, a commit and its writes' steps as one script: COMMIT_SCRIPT's checks and
 * writes, then (only when they passed) STEP_SCRIPT once per write. A script may touch keys of
 * any slot on a single Redis; on a Cluster the record's slot is its payment's and the step's
 * keys are its model's, so there the two stay separate scripts (redis-commit.ts).
 *
 * Both bodies run unchanged, each as a Lua function whose parameters are named KEYS and ARGV:
 * they shadow the script's own, so each body reads its part of the script's keys and arguments
 * as if it ran alone. A step runs under pcall: the commit's writes are done by then, and a step
 * that raised an error (facets that do not decode, a key of the wrong type) must not make a
 * commit that landed look failed; its answer is -1 and the caller sends it again on its own.
 *
 *   KEYS: the commit's keys, then each step's
 *   ARGV: the commit's key and argument counts, the number of steps, then per step its key
 *         and argument counts; then the commit's arguments, then each step's
 *   Answers the commit's answer; when it is {'ok', ...}, each step's answer follows (1, 2 or -1).
 */
export const COMMIT_WITH_STEPS_SCRIPT = `
local function commit(KEYS, ARGV)
${COMMIT_SCRIPT}
end
local function step(KEYS, ARGV)
${STEP_SCRIPT}
end
local function part(list, from, count)
  local slice = {}
  for i = 1, count do slice[i] = list[from + i - 1] end
  return slice
end

local commitKeys, commitArgs, steps = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local a = 4 + 2 * steps
local answer = commit(part(KEYS, 1, commitKeys), part(ARGV, a, commitArgs))
if answer[1] ~= 'ok' then return answer end
local k = commitKeys + 1
a = a + commitArgs
for s = 1, steps do
  local keys, args = tonumber(ARGV[2 + 2 * s]), tonumber(ARGV[3 + 2 * s])
  local ok, applied = pcall(step, part(KEYS, k, keys), part(ARGV, a, args))
  if ok then answer[#answer + 1] = applied else answer[#answer + 1] = -1 end
  k = k + keys
  a = a + args
end
return answer`

interface ScriptArguments { keys: string[], args: Array<string | number> }

/** The one script's KEYS and ARGV, from the commit's and each step's (see commitArguments and stepArguments). */
export function commitWithStepsArguments (commit: ScriptArguments, steps: readonly ScriptArguments[]): ScriptArguments {
  return {
    keys: [...commit.keys, ...steps.flatMap((step) => step.keys)],
    args: [commit.keys.length, commit.args.length, steps.length, ...steps.flatMap((step) => [step.keys.length, step.args.length]),
      ...commit.args, ...steps.flatMap((step) => step.args)]
  }
}
