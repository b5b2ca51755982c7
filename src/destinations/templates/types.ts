// A hog function template as hedgerow ships it: its Hog source and inputs schema, written
// for hedgerow (PostHog's template catalogue is PostHog's code; these are our own), and
// the fields PostHog's template API shows.
import type { InputSchemaItem } from '../../hog/index.js';

export interface MappingTemplate {
  name: string;
  include_by_default: boolean;
  filters: Record<string, unknown> | null;
  inputs: Record<string, unknown> | null;
  inputs_schema: InputSchemaItem[];
}

export interface HogFunctionTemplate {
  id: string;
  name: string;
  description: string;
  type: 'destination' | 'transformation';
  status: 'alpha' | 'beta' | 'stable' | 'deprecated' | 'hidden';
  free: boolean;
  category: string[];
  icon_url: string;
  code: string;
  inputs_schema: InputSchemaItem[];
  filters: Record<string, unknown> | null;
  masking: Record<string, unknown> | null;
  mapping_templates: MappingTemplate[] | null;
}
