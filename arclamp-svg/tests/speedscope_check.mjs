// speedscope_check: what test_export.py asks of a speedscope file written by
// `arclamp-svg export --format speedscope`, using what speedscope's npm
// package ships. The package's importer is bundled into its web app (no
// module or command line runs it in node), so this checks the file against
// the package's own JSON schema (dist/release/file-format-schema.json) with
// the small validator below (the keywords that schema uses: $ref, anyOf,
// const, enum, items, properties, required, type), then the rules the
// schema cannot say (indexes in range, one weight per sample), and prints
// the stacks it describes as JSON: {"total": N, "stacks": [[names root
// first], count]...], "name": ...}.
// Usage: node speedscope_check.mjs SCHEMA PROFILE
import fs from 'node:fs'

const [schemaPath, profilePath] = process.argv.slice(2)
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'))
const doc = JSON.parse(fs.readFileSync(profilePath, 'utf8'))

function typeOk(value, type) {
  switch (type) {
    case 'object': return value !== null && typeof value === 'object' && !Array.isArray(value)
    case 'array': return Array.isArray(value)
    case 'number': return typeof value === 'number' && Number.isFinite(value)
    case 'string': return typeof value === 'string'
    case 'boolean': return typeof value === 'boolean'
    case 'null': return value === null
    default: throw new Error('schema type not handled: ' + type)
  }
}

const known = new Set(['$ref', 'anyOf', 'const', 'enum', 'items', 'properties', 'required',
                       'type', 'title', '$schema', 'definitions'])

// The first error found at `path`, or null.
function validate(value, s, path) {
  for (const k of Object.keys(s))
    if (!known.has(k)) throw new Error('schema keyword not handled: ' + k)
  if (s.$ref) {
    const name = s.$ref.replace('#/definitions/', '')
    const err = validate(value, schema.definitions[name], path)
    if (err) return err
  }
  if (s.type && !typeOk(value, s.type)) return `${path}: not of type ${s.type}`
  if ('const' in s && value !== s.const) return `${path}: not ${JSON.stringify(s.const)}`
  if (s.enum && !s.enum.includes(value)) return `${path}: not one of ${s.enum}`
  if (s.anyOf && !s.anyOf.some(sub => validate(value, sub, path) === null))
    return `${path}: matches none of anyOf`
  if (s.required)
    for (const r of s.required) if (!(r in value)) return `${path}: ${r} missing`
  if (s.properties)
    for (const [k, sub] of Object.entries(s.properties))
      if (k in value) {
        const err = validate(value[k], sub, `${path}.${k}`)
        if (err) return err
      }
  if (s.items && Array.isArray(value))
    for (let i = 0; i < value.length; i++) {
      const err = validate(value[i], s.items, `${path}[${i}]`)
      if (err) return err
    }
  return null
}

const err = validate(doc, schema, '$')
if (err) {
  console.error('schema: ' + err)
  process.exit(1)
}
const frames = doc.shared.frames
const out = {name: doc.name, total: 0, stacks: [], profiles: doc.profiles.length}
for (const p of doc.profiles) {
  if (p.type !== 'sampled' || p.samples.length !== p.weights.length) {
    console.error('not one weight per sample')
    process.exit(1)
  }
  let sum = 0
  p.samples.forEach((stack, i) => {
    for (const f of stack)
      if (!Number.isInteger(f) || f < 0 || f >= frames.length) {
        console.error('frame index out of range: ' + f)
        process.exit(1)
      }
    out.stacks.push([stack.map(f => frames[f].name), p.weights[i]])
    sum += p.weights[i]
  })
  if (sum !== p.endValue - p.startValue) {
    console.error(`weights sum to ${sum}, endValue - startValue is ${p.endValue - p.startValue}`)
    process.exit(1)
  }
  out.total += sum
}
process.stdout.write(JSON.stringify(out))
