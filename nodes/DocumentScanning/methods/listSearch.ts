export { searchTemplates } from '../../shared/templates';
