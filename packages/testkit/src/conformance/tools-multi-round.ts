import {
  type CallToolResult,
  type InputRequest,
  inputRequired,
  inputResponse,
  type McpServer,
} from '@modelcontextprotocol/server';
import {
  ASK,
  acceptedString,
  answered,
  askWithState,
  declaredCapabilities,
  roundState,
} from './input-flows.js';
import { objectInput } from './schema.js';
import type { FixtureState } from './state.js';
import { sampledText } from './tools-client-input.js';

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

/**
 * The multi-round-trip (input-required) tools of the 2026-07-28 scenarios. A missing, declined or
 * malformed answer is asked for again (a new input-required result), never an error; state between rounds
 * is HMAC-signed, so a tampered `requestState` is refused by the SDK's verify hook with -32602.
 */
export function registerMultiRoundTools(mcp: McpServer, state: FixtureState): void {
  mcp.registerTool(
    'test_input_required_result_elicitation',
    { description: 'MRTR: asks for the user name by elicitation, then greets', inputSchema: objectInput() },
    (_args, ctx) => {
      const name = acceptedString(ctx, 'user_name', 'name');
      if (name !== undefined) return text(`Hello, ${name}!`);
      return inputRequired({ inputRequests: { user_name: ASK.userName() } });
    },
  );

  mcp.registerTool(
    'test_input_required_result_sampling',
    { description: 'MRTR: asks the client to sample an answer, then returns it', inputSchema: objectInput() },
    (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'capital_question');
      if (answer.kind === 'sampling') return text(`Sampled: ${sampledText(answer.result)}`);
      return inputRequired({
        inputRequests: { capital_question: ASK.sample('What is the capital of France?') },
      });
    },
  );

  mcp.registerTool(
    'test_input_required_result_list_roots',
    { description: "MRTR: asks for the client's roots, then lists them", inputSchema: objectInput() },
    (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'client_roots');
      if (answer.kind === 'roots') return text(`Roots: ${answer.roots.map((r) => r.uri).join(', ')}`);
      return inputRequired({ inputRequests: { client_roots: ASK.roots() } });
    },
  );

  const requestStateFlow = 'test_input_required_result_request_state';
  mcp.registerTool(
    requestStateFlow,
    { description: 'MRTR: returns InputRequiredResult with requestState', inputSchema: objectInput() },
    (_args, ctx) => {
      const round = roundState(ctx, requestStateFlow);
      if (round !== undefined && answered(ctx, 'confirm', 'elicit')) {
        return text(`state-ok: requestState of round ${round.round} validated`);
      }
      return askWithState(state, ctx, { flow: requestStateFlow, round: 1 }, { confirm: ASK.confirm() });
    },
  );

  const multipleFlow = 'test_input_required_result_multiple_inputs';
  mcp.registerTool(
    multipleFlow,
    { description: 'MRTR: asks for elicitation, sampling and roots at once', inputSchema: objectInput() },
    (_args, ctx) => {
      const missing: Record<string, InputRequest> = {};
      if (!answered(ctx, 'user_name', 'elicit')) missing.user_name = ASK.userName();
      if (!answered(ctx, 'greeting', 'sampling')) missing.greeting = ASK.sample('Generate a greeting', 50);
      if (!answered(ctx, 'client_roots', 'roots')) missing.client_roots = ASK.roots();
      if (Object.keys(missing).length === 0 && roundState(ctx, multipleFlow) !== undefined) {
        return text(`All inputs received: name=${acceptedString(ctx, 'user_name', 'name') ?? '?'}`);
      }
      const ask = Object.keys(missing).length > 0 ? missing : askEverything();
      return askWithState(state, ctx, { flow: multipleFlow, round: 1 }, ask);
    },
  );

  const multiRoundFlow = 'test_input_required_result_multi_round';
  mcp.registerTool(
    multiRoundFlow,
    { description: 'MRTR: two elicitation rounds with evolving requestState', inputSchema: objectInput() },
    (_args, ctx) => {
      const round = roundState(ctx, multiRoundFlow);
      const name = acceptedString(ctx, 'step1', 'name');
      if (round?.round === 1 && name !== undefined) {
        return askWithState(
          state,
          ctx,
          { flow: multiRoundFlow, round: 2, answers: { name } },
          { step2: ASK.color() },
        );
      }
      const color = acceptedString(ctx, 'step2', 'color');
      if (round?.round === 2 && color !== undefined) {
        return text(`Done: name=${String(round.answers?.name)}, color=${color}`);
      }
      if (round?.round === 2) {
        return askWithState(state, ctx, round, { step2: ASK.color() });
      }
      return askWithState(
        state,
        ctx,
        { flow: multiRoundFlow, round: 1 },
        { step1: ASK.userName('Step 1: What is your name?') },
      );
    },
  );

  const tamperFlow = 'test_input_required_result_tampered_state';
  mcp.registerTool(
    tamperFlow,
    { description: 'MRTR: HMAC-signed requestState integrity test', inputSchema: objectInput() },
    (_args, ctx) => {
      if (roundState(ctx, tamperFlow) !== undefined && answered(ctx, 'confirm', 'elicit')) {
        return text('state-ok: signature verified');
      }
      return askWithState(state, ctx, { flow: tamperFlow, round: 1 }, { confirm: ASK.confirm() });
    },
  );

  mcp.registerTool(
    'test_input_required_result_capabilities',
    { description: 'MRTR: respects client capabilities in inputRequests', inputSchema: objectInput() },
    (_args, ctx) => {
      const caps = declaredCapabilities(mcp, ctx);
      const wanted: Record<string, InputRequest> = {};
      if (caps.sampling !== undefined && !answered(ctx, 'sample', 'sampling')) {
        wanted.sample = ASK.sample('Say hello', 20);
      }
      if (caps.elicitation !== undefined && !answered(ctx, 'confirm', 'elicit'))
        wanted.confirm = ASK.confirm();
      if (caps.roots !== undefined && !answered(ctx, 'client_roots', 'roots'))
        wanted.client_roots = ASK.roots();
      if (Object.keys(wanted).length > 0) return inputRequired({ inputRequests: wanted });
      const declared = ['sampling', 'elicitation', 'roots'].filter((c) => c in caps);
      return text(`capabilities-ok: declared ${declared.join(',') || 'none'}`);
    },
  );

  mcp.registerTool(
    'test_missing_capability',
    {
      description: 'Needs sampling from the client: refused (-32021) when not declared',
      inputSchema: objectInput(),
    },
    (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'sample');
      if (answer.kind === 'sampling') return text(`Sampled: ${sampledText(answer.result)}`);
      // The SDK answers MissingRequiredClientCapabilityError when the request did not declare sampling.
      return inputRequired({ inputRequests: { sample: ASK.sample('Say hello', 20) } });
    },
  );

  mcp.registerTool(
    'test_streaming_elicitation',
    { description: 'Asks for input only through an input-required result', inputSchema: objectInput() },
    (_args, ctx) => {
      const name = acceptedString(ctx, 'user_name', 'name');
      if (name !== undefined) return text(`Hello, ${name}!`);
      return inputRequired({ inputRequests: { user_name: ASK.userName() } });
    },
  );
}

/** Every input the multiple-inputs flow needs (asked again when a retry lost its state). */
function askEverything(): Record<string, InputRequest> {
  return {
    user_name: ASK.userName(),
    greeting: ASK.sample('Generate a greeting', 50),
    client_roots: ASK.roots(),
  };
}
