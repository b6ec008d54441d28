import { setup } from './user-folder';

export default setup;
