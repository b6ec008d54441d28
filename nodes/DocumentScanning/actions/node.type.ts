import type { AllEntities } from 'n8n-workflow';

type NodeMap = {
	scan: 'upload' | 'get' | 'getAll';
	template: 'getAll';
	account: 'get';
	webhook: 'create' | 'getAll' | 'delete' | 'getLogs';
};

export type DocumentScanningType = AllEntities<NodeMap>;
