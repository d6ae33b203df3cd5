// Route schemas are compiled into validators (Ajv) and response serializers (fast-json-stringify) on their
// first request instead of all at once before the server listens: Fastify's default compiles every route's
// schemas (hundreds) in `ready` and at registration, which would be most of the time an empty `serve` takes
// to answer /readyz, and most of what building the application costs. After listening, the ones not used yet
// are compiled in the background, one per turn of the event loop, so no request waits behind the batch and
// the first request of a route rarely compiles anything.
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type RouteSchema = Parameters<ReturnType<ReturnType<typeof AjvCompiler>>>[0];

export interface LazyValidators {
  /** Fastify's `schemaController.compilersFactory.buildValidator`, the default Ajv compiler behind it. */
  buildValidator: ReturnType<typeof AjvCompiler>;
  /** Fastify's `schemaController.compilersFactory.buildSerializer`, fast-json-stringify behind it. */
  buildSerializer: ReturnType<typeof SerializerSelector>;
  /** Compiles the validators and serializers not compiled yet, one per macrotask; resolves when none is left. */
  compilePending(): Promise<void>;
}

export function lazyValidators(): LazyValidators {
  const ajv = AjvCompiler();
  const pending: Array<() => void> = [];
  const buildValidator = ((externalSchemas: unknown, options: unknown) => {
    const compiler = (ajv as (a: unknown, b: unknown) => (route: RouteSchema) => Validate)(externalSchemas, options);
    return (route: RouteSchema) => {
      let compiled: Validate | null = null;
      const compile = () => (compiled ??= compiler(route));
      const validate: Validate = function (this: unknown, data: unknown) {
        const fn = compile();
        const result = fn.call(this, data);
        validate.errors = fn.errors;
        return result;
      };
      pending.push(compile);
      return validate;
    };
  }) as unknown as ReturnType<typeof AjvCompiler>;
  const fjs = SerializerSelector();
  const buildSerializer = ((externalSchemas: unknown, options: unknown) => {
    const compiler = (fjs as (a: unknown, b: unknown) => (route: unknown) => (data: unknown) => string)(externalSchemas, options);
    return (route: unknown) => {
      let compiled: ((data: unknown) => string) | null = null;
      const compile = () => (compiled ??= compiler(route));
      pending.push(compile);
      return (data: unknown) => compile()(data);
    };
  }) as unknown as ReturnType<typeof SerializerSelector>;
  const compilePending = async () => {
    while (pending.length) {
      pending.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { buildValidator, buildSerializer, compilePending };
}
