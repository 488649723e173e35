/**
 * Discovery's HTTP: the shared any-port GET of source/sources/http-get.ts (node:http with a hard
 * deadline, a byte cap and streamed list reads), re-exported under the names discovery uses.
 */
export {
	DEFAULT_HTTP_TIMEOUT_MS,
	answerJson,
	httpGet,
	isAnswer,
	isRecord,
	parseJson,
	sharedAbortController,
	type GetOptions,
	type HttpAnswer,
	type HttpFailure,
	type HttpResult,
	type ListRead,
} from '../http-get.js';
