// Closed-form AGPU costs of the apsp family (kernels/apsp/): written with its kernels.
