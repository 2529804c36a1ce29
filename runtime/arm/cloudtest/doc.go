// Package cloudtest is a stand-in for Azure AD and ARM of any cloud, on a
// policy.Transporter: tests give a Recorder as the Transport of a
// credential (arm.AuthOptions) and of an ARM client (arm.Options), and read
// which hosts were called and which token scope was asked for. Nothing
// goes to the network.
package cloudtest
