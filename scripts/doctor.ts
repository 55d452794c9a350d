// npm run doctor -- <module>[#export] [--strict]: builds every gateway of an application's
// Paywire setup and lists, per gateway, what is deprecated (removed in 3.0) and what fails.
import { runDoctor } from './doctor/doctor.ts'

// The report lists the deprecations; the same warnings on stderr would only repeat it.
process.noDeprecation = true
process.exitCode = await runDoctor(process.argv.slice(2), {
  out: process.stdout.write.bind(process.stdout),
  err: process.stderr.write.bind(process.stderr)
})
