// Stands in for `@modelcontextprotocol/server/_shims` in the Lambda bundles (scripts/build-assets.ts aliases it).
// The 2.x SDK's Node shim brings its own bundled copy of Ajv and ajv-formats (about 150 KiB minified), beside the
// copy the 1.x SDK and the tool registry already load; this shim serves the same validator from that one copy.
// It keeps the SDK's dispatch on the schema's declared dialect: no `$schema` or 2020-12 → Ajv2020, draft-07/06 →
// the classic Ajv class. Tests run the SDK's own shim (no alias), so both must validate alike.
import process from 'node:process';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type JsonSchema = Record<string, unknown>;
type Engine = Ajv | Ajv2020;

function engine(engineClass: typeof Ajv | typeof Ajv2020): AjvJsonSchemaValidator {
  // The options of the SDK's default engines.
  const ajv: Engine = new engineClass({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
  (addFormats as unknown as (ajv: Engine) => void)(ajv);
  return new AjvJsonSchemaValidator(ajv as never);
}

export class DefaultJsonSchemaValidator {
  private draft2020?: AjvJsonSchemaValidator;
  private draft7?: AjvJsonSchemaValidator;

  getValidator<T>(schema: JsonSchema): ReturnType<AjvJsonSchemaValidator['getValidator']> {
    const declared = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
    const validator = /draft-0[67]/.test(declared)
      ? (this.draft7 ??= engine(Ajv))
      : (this.draft2020 ??= engine(Ajv2020));
    return validator.getValidator<T>(schema as never);
  }
}

export { process };
