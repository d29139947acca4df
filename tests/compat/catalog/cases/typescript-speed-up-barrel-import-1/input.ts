import {a, b, c} from './barrel'
