package widget

import (
	"github.com/hashicorp/go-azure-helpers/resourcemanager/commonschema"
	"github.com/hashicorp/go-azure-sdk/resource-manager/widget/2024-01-01/widgets"
)

func resourceWidget() *pluginsdk.Resource {
	return &pluginsdk.Resource{
		Create: resourceWidgetCreate,
		Update: resourceWidgetUpdate,
		Delete: resourceWidgetDelete,
		Schema: map[string]*pluginsdk.Schema{
			"name":     {Type: pluginsdk.TypeString, Required: true, ForceNew: true},
			"location": commonschema.Location(),
			"size":     {Type: pluginsdk.TypeInt, Optional: true},
			"part": {
				Type:     pluginsdk.TypeList,
				Optional: true,
				ForceNew: true,
				Elem: &pluginsdk.Resource{Schema: map[string]*pluginsdk.Schema{
					"colour": {Type: pluginsdk.TypeString, Required: true},
				}},
			},
			"note":  {Type: pluginsdk.TypeString, Optional: true},
			"state": {Type: pluginsdk.TypeString, Computed: true},
		},
		CustomizeDiff: pluginsdk.CustomDiffWithAll(
			pluginsdk.ForceNewIfChange("size", func(ctx context.Context, old, new, meta interface{}) bool { return new.(int) < old.(int) }),
		),
	}
}

func resourceWidgetCreate(d *pluginsdk.ResourceData, meta interface{}) error {
	id := widgets.NewWidgetID(d.Get("name").(string))
	w := widgets.Widget{
		Location:   pointer.To(d.Get("location").(string)),
		Properties: &widgets.WidgetProperties{Parts: expandParts(d.Get("part").([]interface{}))},
	}
	if v, ok := d.GetOk("size"); ok {
		w.Properties.Size = pointer.To(int64(v.(int)))
	}
	log.Printf("note: %s", d.Get("note").(string))
	return client.CreateOrUpdate(ctx, id, w)
}

func expandParts(input []interface{}) *[]widgets.Part {
	out := make([]widgets.Part, 0)
	for _, raw := range input {
		v := raw.(map[string]interface{})
		out = append(out, widgets.Part{Colour: pointer.To(v["colour"].(string))})
	}
	return &out
}

func resourceWidgetUpdate(d *pluginsdk.ResourceData, meta interface{}) error {
	if d.HasChanges("size", "note") {
		return resourceWidgetCreate(d, meta)
	}
	return nil
}

func resourceWidgetDelete(d *pluginsdk.ResourceData, meta interface{}) error {
	id, err := widgets.ParseWidgetID(d.Id())
	return err
}
