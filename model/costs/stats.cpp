// Closed-form AGPU costs of the stats family (kernels/stats/): written with its kernels.
