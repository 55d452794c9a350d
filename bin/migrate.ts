import { runMigrations } from '../plugins/postgres/migrate-command.ts'
import { parseCommandArguments, runCommand } from './arguments.ts'
import type { CliIo } from './commands.ts'

const USAGE = `Usage: paywire migrate [--schema <name>]

Applies Paywire's PostgreSQL migrations to the database on DATABASE_URL, in the schema
given (default "paywire"). Idempotent; exit code 0 when the schema is up to date afterwards.

  --schema <name>   the schema the paywire-postgres plugin's \`schema\` option names
`

/** `paywire migrate [--schema <name>]`: the reason of a failure on stderr, never the password. */
export async function migrate (args: readonly string[], io: CliIo): Promise<number | undefined> {
  return await runCommand(io, async () => {
    const { values } = parseCommandArguments('migrate', args, { schema: { type: 'string' } })
    if (values.help === true) {
      io.out(USAGE)
      return 0
    }
    try {
      await runMigrations({ schema: values.schema as string | undefined, connectionString: io.env.DATABASE_URL ?? '', log: (line) => io.out(`${line}\n`) })
      return 0
    } catch (error) {
      const coded = error as Error & { code?: string }
      io.err(`${coded.code ?? coded.name}: ${coded.message.split('\n')[0] ?? ''}\n`)
      return 1
    }
  })
}
