/** The validated, defaulted model of a CustomResourceDefinition and its parser/validator. */
package io.mvproxy.registry.impl.model;
