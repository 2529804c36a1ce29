package composite

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/armature-dev/armature/api/core"
	resources "github.com/armature-dev/armature/generated/apis/resources/v20240301"
	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
	"github.com/armature-dev/armature/runtime/configurator"
)

var (
	// GVK is the AppStack kind.
	GVK = schema.GroupVersionKind{Group: "examples.armature.dev", Version: "v1alpha1", Kind: "AppStack"}

	resourceGroupGVK = resources.GroupVersion.WithKind("ResourceGroup")
	accountGVK       = storage.GroupVersion.WithKind("StorageAccount")
	blobServiceGVK   = storage.GroupVersion.WithKind("StorageAccountsBlobService")
	containerGVK     = storage.GroupVersion.WithKind("StorageAccountsBlobServicesContainer")
)

// DefaultContainerName is the container's Azure name when spec.containerName
// is empty.
const DefaultContainerName = "data"

// Register watches the kinds an AppStack reads and registers the AppStack
// kind. The registry's client scheme must hold the storage kinds
// (apis.AddToScheme).
func Register(reg *configurator.Registry) error {
	for _, gvk := range []schema.GroupVersionKind{resourceGroupGVK, accountGVK, blobServiceGVK, containerGVK} {
		if err := reg.Watch(gvk, nil); err != nil {
			return err
		}
	}
	return reg.Register(Kind())
}

// Kind is the AppStack's Select and Render.
func Kind() configurator.Kind {
	return configurator.Kind{GVK: GVK, Select: Select, Render: Render}
}

// Spec is an AppStack's spec, defaults applied.
type Spec struct {
	ResourceGroup      string
	StorageAccountName string
	Location           string
	ContainerName      string
}

// names of the declared custom resources, derived from the spec.
func (s Spec) account() string     { return s.StorageAccountName }
func (s Spec) blobService() string { return s.StorageAccountName + "-default" }
func (s Spec) container() string   { return s.StorageAccountName + "-" + s.ContainerName }

// Part is what the status shows of the group or a declared resource.
type Part struct {
	Kind   string `json:"kind,omitempty"`
	Name   string `json:"name"`
	Exists bool   `json:"exists"`
	Ready  bool   `json:"ready"`
	Reason string `json:"reason,omitempty"`
}

func part(kind, name string, r *configurator.Resource) Part {
	p := Part{Kind: kind, Name: name, Exists: r != nil}
	if r == nil {
		p.Reason = "NotFound"
		return p
	}
	p.Ready = r.Ready()
	if c := r.Condition(configurator.ConditionReady); c != nil {
		p.Reason = c.Reason
	}
	return p
}

// Select reads the ResourceGroup and the declared resources (tracked).
func Select(ix *configurator.Tracker, in *configurator.Resource) (configurator.Selected, error) {
	s := Spec{
		ResourceGroup:      in.String("spec.resourceGroup"),
		StorageAccountName: in.String("spec.storageAccountName"),
		Location:           in.String("spec.location"),
		ContainerName:      in.String("spec.containerName"),
	}
	if s.ContainerName == "" {
		s.ContainerName = DefaultContainerName
	}
	rg := ix.Of(resourceGroupGVK, s.ResourceGroup)
	location := s.Location
	if location == "" && rg != nil {
		location = rg.String("spec.location")
	}
	if location == "" {
		location = in.String("status.location")
	}
	group := part("", s.ResourceGroup, rg)
	return configurator.Selected{
		"spec":          s,
		"location":      location,
		"resourceGroup": group,
		"resources": []Part{
			part("StorageAccount", s.account(), ix.Of(accountGVK, s.account())),
			part("StorageAccountsBlobService", s.blobService(), ix.Of(blobServiceGVK, s.blobService())),
			part("StorageAccountsBlobServicesContainer", s.container(), ix.Of(containerGVK, s.container())),
		},
	}, nil
}

// Render declares the storage account, its blob service and the container,
// and summarises them in the status.
func Render(ix *configurator.Renderer, sel configurator.Selected) (configurator.Status, error) {
	s := sel["spec"].(Spec)
	location := sel["location"].(string)
	group := sel["resourceGroup"].(Part)
	parts := sel["resources"].([]Part)
	if location == "" {
		return configurator.Status{
			"ready":         false,
			"summary":       fmt.Sprintf("waiting for the location of ResourceGroup %s", s.ResourceGroup),
			"resourceGroup": group,
		}, nil
	}
	ix.Resource(&storage.StorageAccount{
		ObjectMeta: metaName(s.account()),
		Spec: storage.StorageAccountSpec{
			AzureName: s.StorageAccountName,
			Owner:     &core.ResourceReference{Name: s.ResourceGroup},
			Location:  ptr.To(location),
			Kind:      ptr.To(storage.Kind_StorageV2),
			Sku:       &storage.Sku{Name: ptr.To(storage.SkuName_Standard_LRS)},
		},
	})
	ix.Resource(&storage.StorageAccountsBlobService{
		ObjectMeta: metaName(s.blobService()),
		Spec: storage.StorageAccountsBlobServiceSpec{
			AzureName: "default",
			Owner:     &core.ResourceReference{Name: s.account()},
		},
	})
	ix.Resource(&storage.StorageAccountsBlobServicesContainer{
		ObjectMeta: metaName(s.container()),
		Spec: storage.StorageAccountsBlobServicesContainerSpec{
			AzureName: s.ContainerName,
			Owner:     &core.ResourceReference{Name: s.blobService()},
		},
	})
	return configurator.Status{
		"ready":         group.Ready && readyCount(parts) == len(parts),
		"summary":       summary(group, parts),
		"location":      location,
		"resourceGroup": group,
		"resources":     parts,
	}, nil
}

func readyCount(parts []Part) int {
	n := 0
	for _, p := range parts {
		if p.Ready {
			n++
		}
	}
	return n
}

// summary is "3/3 ready", or what is awaited first.
func summary(group Part, parts []Part) string {
	var waiting []string
	if !group.Ready {
		waiting = append(waiting, fmt.Sprintf("ResourceGroup %s (%s)", group.Name, reasonOr(group.Reason, "not Ready")))
	}
	for _, p := range parts {
		if !p.Ready {
			waiting = append(waiting, fmt.Sprintf("%s %s (%s)", p.Kind, p.Name, reasonOr(p.Reason, "not Ready")))
		}
	}
	s := fmt.Sprintf("%d/%d ready", readyCount(parts), len(parts))
	if len(waiting) > 0 {
		s += "; waiting for " + strings.Join(waiting, ", ")
	}
	return s
}

func reasonOr(reason, def string) string {
	if reason == "" {
		return def
	}
	return reason
}

func metaName(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name} }
