//! glTF 2.0 models decoded into plain CPU data (meshes, materials, images, nodes) for upload.
