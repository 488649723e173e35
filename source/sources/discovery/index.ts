/** Discovery and polling of inference servers: the public surface for the CLI and the app. */
export {createDiscovery, discoverOnce, type Discovery, type DiscoveryOptions, type DiscoverOnceOptions, type NamedServer} from './discovery.js';
export {fingerprint, identify, PROBE_PATHS, type Identity, type FingerprintResult, type ProbeResponses} from './fingerprint.js';
export {DEFAULT_PORTS, scanPorts, tcpAccepts, type PortResult, type ScanOptions} from './port-scan.js';
export {createPoller, pollServer, type ServerPoller, type PollerOptions} from './pollers.js';
export {createProcessFinder, ENGINE_PROCESS_NAMES, engineOfProcess, findEngineProcesses, logFileFromCommand, type EngineProcess, type ProcessFinder} from './processes.js';
export {normalizeServerUrl, loopbackId} from './server-id.js';
