// Build-time stand-in for @supabase/functions-js (see storage-js.ts): Casus calls no Edge
// Functions. Any use fails loudly.
export class FunctionsError extends Error {}
export class FunctionsFetchError extends FunctionsError {}
export class FunctionsHttpError extends FunctionsError {}
export class FunctionsRelayError extends FunctionsError {}
export const FunctionRegion = { Any: 'any' } as const;
export class FunctionsClient {
  constructor(..._args: unknown[]) {}
  setAuth() {}
  invoke(): never {
    throw new Error('Supabase Edge Functions nu sunt folosite de Casus');
  }
}
