// Closed-form AGPU costs of the scan family (kernels/scan/): written with its kernels.
