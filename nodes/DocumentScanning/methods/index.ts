export * as listSearch from '../../shared/templates';
