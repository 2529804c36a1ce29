package widgets

type WidgetId struct{}

func (id WidgetId) Segments() []resourceids.Segment {
	return []resourceids.Segment{
		resourceids.StaticSegment("providers", "providers", "providers"),
		resourceids.ResourceProviderSegment("resourceProvider", "Microsoft.Example", "Microsoft.Example"),
		resourceids.StaticSegment("widgets", "widgets", "widgets"),
		resourceids.UserSpecifiedSegment("widgetName", "widgetValue"),
	}
}

func (c WidgetsClient) CreateOrUpdate(ctx context.Context, id WidgetId, input Widget) error {
	_ = http.MethodPut
	return nil
}

type Widget struct {
	Location   *string           `json:"location,omitempty"`
	Properties *WidgetProperties `json:"properties,omitempty"`
}

type WidgetProperties struct {
	Size  *int64  `json:"size,omitempty"`
	Parts *[]Part `json:"parts,omitempty"`
}

type Part struct {
	Colour *string `json:"colour,omitempty"`
}
