// The public surface of @crateflow/sdk/testing: the contract-test kit. Same promise as the main entry point:
// additive changes only within a major version.
export { testDownloadClientContract, downloadClientContractChecks } from './download-client-contract.js';
export type { DownloadClientContractOptions, DownloadClientService } from './download-client-contract.js';
export { testLibraryContract, libraryContractChecks } from './library-contract.js';
export type { LibraryContractOptions } from './library-contract.js';
export { testEventSinkContract, eventSinkContractChecks, sampleEvent } from './event-sink-contract.js';
export type { EventSinkContractOptions, EventSinkService } from './event-sink-contract.js';
export { testAuthContract, authContractChecks, anonymousRequest } from './auth-contract.js';
export { testSourceContract, sourceContractChecks, createTestSourceRun } from './source-contract.js';
export type { SourceContractOptions, TestSourceRun } from './source-contract.js';
export { testPreviewContract, previewContractChecks } from './preview-contract.js';
export type { PreviewContractOptions, PreviewAlbum } from './preview-contract.js';
export { testNotifierContract, notifierContractChecks, sampleNotifications } from './notifier-contract.js';
export type { NotifierContractOptions } from './notifier-contract.js';
export type { AuthContractOptions } from './auth-contract.js';
export type { ContractCheck, ContractService, ServiceAndConfig, CommonContractOptions } from './contract-check.js';
export { createTestContext } from './create-test-context.js';
export type { TestContext, TestContextOverrides } from './create-test-context.js';
export { configFor } from './config-for.js';
export type { ConfigInput } from './config-for.js';
export { assertRecord } from './check-record.js';
export { ManualClock } from './manual-clock.js';
export { MemoryStorage } from './memory-storage.js';
export { RecordingLogger } from './recording-logger.js';
export type { LogEntry } from './recording-logger.js';
