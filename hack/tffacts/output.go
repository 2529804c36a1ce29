package main

// The fact kinds of the data file.
const (
	factForceNew    = "forceNew"
	factConditional = "conditionalForceNew"
	factUpdatable   = "updatable"
)

// table is the data file, specs/terraform/azurerm.json.
type table struct {
	Source            string             `json:"source"`
	Commit            string             `json:"commit"`
	GeneratedBy       string             `json:"generatedBy"`
	Resources         []resourceFacts    `json:"resources"`
	UnmappedResources []unmappedResource `json:"unmappedResources"`
	Summary           summary            `json:"summary"`
}

// resourceFacts are the facts of one resource with an ARM type.
type resourceFacts struct {
	Resource   string     `json:"resource"`
	ArmType    string     `json:"armType"`
	APIVersion string     `json:"apiVersion"`
	File       string     `json:"file"`
	Facts      []fact     `json:"facts"`
	Unmapped   []unmapped `json:"unmapped"`
}

// fact is one attribute at one ARM path.
type fact struct {
	Attribute string `json:"attribute"`
	Path      string `json:"path"`
	Fact      string `json:"fact"`
	Line      int    `json:"line"`
	Condition string `json:"condition,omitempty"`
}

// unmapped is an attribute no path was found for, and why.
type unmapped struct {
	Attribute string `json:"attribute"`
	Line      int    `json:"line"`
	Reason    string `json:"reason"`
}

// unmappedResource is a resource whose ARM type or SDK models were not
// found.
type unmappedResource struct {
	Resource string `json:"resource"`
	File     string `json:"file"`
	Reason   string `json:"reason"`
}

// summary counts the table: attributes = mapped + unmapped attributes;
// forceNew, conditionalForceNew and updatable count facts.
type summary struct {
	Resources           int `json:"resources"`
	Attributes          int `json:"attributes"`
	Mapped              int `json:"mapped"`
	Unmapped            int `json:"unmapped"`
	ForceNew            int `json:"forceNew"`
	ConditionalForceNew int `json:"conditionalForceNew"`
	Updatable           int `json:"updatable"`
}
